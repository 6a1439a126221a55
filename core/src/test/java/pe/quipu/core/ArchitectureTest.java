package pe.quipu.core;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * core is what the API and the ETL share: domain values, the tables both write, the database bootstrap. So it depends
 * on neither's framework, and its packages depend on each other one way.
 */
@AnalyzeClasses(packages = "pe.quipu", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule modules_are_free_of_cycles = slices().matching("pe.quipu.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule core_packages_are_free_of_cycles = slices().matching("pe.quipu.core.(*)..")
            .should().beFreeOfCycles();

    /** Dropwizard's Duration (io.dropwizard.util) is the one piece allowed: config.yml's durations, no web code. */
    @ArchTest
    static final ArchRule core_depends_on_no_web_framework = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat(resideInAnyPackage("jakarta.ws.rs..", "jakarta.servlet..",
                            "org.glassfish.jersey..", "org.eclipse.jetty..", "com.codahale.metrics..")
                    .or(resideInAPackage("io.dropwizard..").and(resideInAPackage("io.dropwizard.util..").negate())))
            .because("core is shared with the ETL and must not drag in the web framework");

    @ArchTest
    static final ArchRule core_depends_on_no_batch_framework = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework..")
            .because("core is shared with the API and must not drag in the batch framework");

    @ArchTest
    static final ArchRule core_depends_on_neither_module = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat().resideInAnyPackage("pe.quipu.api..", "pe.quipu.etl..");
}
