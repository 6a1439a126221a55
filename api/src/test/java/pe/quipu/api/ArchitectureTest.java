package pe.quipu.api;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.dropwizard.core.setup.Environment;
import jakarta.servlet.http.HttpServlet;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

import java.util.Optional;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.conditions.ArchPredicates.are;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The API's shape: feature packages that depend on each other one way and never on the root (the application and
 * its configuration), cross-cutting packages that know no feature, HTTP at the edge, a resource's types kept to its
 * own package, and one configuration class that only the application reads.
 */
@AnalyzeClasses(packages = "pe.quipu", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** What every feature may use; none of them knows a feature. */
    private static final String[] CROSS_CUTTING = {"pe.quipu.api.platform..", "pe.quipu.api.http..",
            "pe.quipu.api.auth..", "pe.quipu.api.domain..", "pe.quipu.api.audit..", "pe.quipu.api.throttle.."};

    /**
     * Resources, JAX-RS and servlet filters and providers, operator tasks, the http package, the two web pages'
     * packages (docs, dashboard: files served as they are, no service behind them), and the features' assemblers,
     * which take Dropwizard's environment to register them: where HTTP is spoken.
     */
    private static final DescribedPredicate<JavaClass> HTTP_EDGE = DescribedPredicate.describe("the HTTP edge",
            (JavaClass c) -> c.isAnnotatedWith(Path.class)
                    || c.isAssignableTo(ContainerRequestFilter.class) || c.isAssignableTo(ContainerResponseFilter.class)
                    || c.isAssignableTo(DynamicFeature.class) || c.isAssignableTo(ExceptionMapper.class)
                    || c.isAssignableTo(HttpServlet.class) || c.isAssignableTo(jakarta.servlet.Filter.class)
                    || c.getPackageName().startsWith("pe.quipu.api.http")
                    || c.getPackageName().equals("pe.quipu.api.docs")
                    || c.getPackageName().equals("pe.quipu.api.dashboard")
                    || c.getDirectDependenciesFromSelf().stream()
                            .anyMatch(d -> d.getTargetClass().isEquivalentTo(Environment.class)));

    @ArchTest
    static final ArchRule modules_are_free_of_cycles = slices().matching("pe.quipu.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule feature_packages_are_free_of_cycles = slices().matching("pe.quipu.api.(*)..")
            .should().beFreeOfCycles();

    /** The slices above leave the root out: a feature using the root would make a cycle they cannot see. */
    @ArchTest
    static final ArchRule no_package_depends_on_the_root = noClasses()
            .that().resideInAPackage("pe.quipu.api.*..")
            .should().dependOnClassesThat().resideInAPackage("pe.quipu.api")
            .because("the root holds the application, which assembles the features; they must not need it");

    @ArchTest
    static final ArchRule cross_cutting_packages_know_no_feature = noClasses()
            .that().resideInAnyPackage(CROSS_CUTTING)
            .should().dependOnClassesThat(resideInAPackage("pe.quipu.api.*..")
                    .and(DescribedPredicate.not(resideInAnyPackage(CROSS_CUTTING))))
            .because("platform, http, auth, domain, audit and throttle serve every feature");

    @ArchTest
    static final ArchRule a_resource_and_its_types_stay_in_its_package = classes()
            .that().resideInAPackage("pe.quipu.api..")
            .should(new ArchCondition<>("use no resource (a @Path class) of another package, nor its nested types") {
                @Override
                public void check(JavaClass origin, ConditionEvents events) {
                    for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                        Optional<JavaClass> resource = resourceOf(dependency.getTargetClass());
                        if (resource.isPresent() && !resource.get().getPackageName().equals(origin.getPackageName())
                                && !origin.getPackageName().equals("pe.quipu.api")) {
                            events.add(SimpleConditionEvent.violated(origin, dependency.getDescription()));
                        }
                    }
                }
            })
            .because("a resource is the HTTP face of its feature; what others need of it is a type of the feature");

    @ArchTest
    static final ArchRule only_http_and_resources_build_responses = noClasses()
            .that().resideInAPackage("pe.quipu.api..").and().resideOutsideOfPackage("pe.quipu.api.http..")
            .and().areNotAnnotatedWith(Path.class)
            .should().dependOnClassesThat(are(assignableTo(Response.class))
                    .or(assignableTo(Response.ResponseBuilder.class))
                    .or(assignableTo(WebApplicationException.class)))
            .because("an HTTP status and its answer are chosen at the edge: in pe.quipu.api.http and in resources");

    /** The feature and cross-cutting packages; the root package holds the wiring, which registers the edge. */
    @ArchTest
    static final ArchRule services_speak_the_domain = noClasses()
            .that().resideInAPackage("pe.quipu.api.*..").and(DescribedPredicate.not(HTTP_EDGE))
            .should().dependOnClassesThat(resideInAPackage("pe.quipu.api.http..")
                    .or(resideInAnyPackage("jakarta.ws.rs..", "jakarta.servlet..")))
            .because("services throw domain exceptions or return results; only the HTTP edge maps them to answers");

    @ArchTest
    static final ArchRule only_the_application_reads_the_configuration = noClasses()
            .that().resideInAPackage("pe.quipu..")
            .and().doNotBelongToAnyOf(QuipuApplication.class, QuipuConfiguration.class)
            .should().dependOnClassesThat().belongToAnyOf(QuipuConfiguration.class)
            .because("each feature owns its settings class; QuipuConfiguration composes them");

    @ArchTest
    static final ArchRule api_depends_on_nothing_of_the_etl = noClasses().that().resideInAPackage("pe.quipu.api..")
            .should().dependOnClassesThat().resideInAPackage("pe.quipu.etl..");

    /** The @Path class that {@code type} is, or is nested in. */
    private static Optional<JavaClass> resourceOf(JavaClass type) {
        for (JavaClass c = type; c != null; c = c.getEnclosingClass().orElse(null)) {
            if (c.isAnnotatedWith(Path.class)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
