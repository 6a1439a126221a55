package pe.quipu.etl;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The ETL is a batch program beside the API, not part of it: it shares core with the API and nothing else, carries
 * no web framework, and its packages depend on each other one way: the root (the command line, the configuration,
 * the list of jobs) on the job packages ({@code padron}, {@code extendido}, {@code ubigeo}, {@code fx},
 * {@code sunat}), which know nothing of each other, and they on the cross-cutting {@code run} and {@code source}; the
 * data generators ({@code generate}) stand beside them.
 */
@AnalyzeClasses(packages = "pe.quipu", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule modules_are_free_of_cycles = slices().matching("pe.quipu.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule etl_packages_are_free_of_cycles = slices().matching("pe.quipu.etl.(*)..")
            .should().beFreeOfCycles();

    /** The slices above leave the root out: a job using the root would make a cycle they cannot see. */
    @ArchTest
    static final ArchRule no_package_depends_on_the_root = noClasses().that().resideInAPackage("pe.quipu.etl.*..")
            .should().dependOnClassesThat().resideInAPackage("pe.quipu.etl")
            .because("the root lists the jobs and runs them; what jobs share is in run and source");

    @ArchTest
    static final ArchRule job_packages_do_not_depend_on_each_other = slices()
            .matching("pe.quipu.etl.(padron|extendido|ubigeo|fx|sunat)..").namingSlices("job $1")
            .should().notDependOnEachOther()
            .because("each job reads its own source into its own tables; what two jobs share is in run or source");

    @ArchTest
    static final ArchRule etl_depends_on_nothing_of_the_api = noClasses().that().resideInAPackage("pe.quipu.etl..")
            .should().dependOnClassesThat().resideInAPackage("pe.quipu.api..")
            .because("the ETL runs without the API; what both need is in core");

    @ArchTest
    static final ArchRule etl_depends_on_no_web_framework = noClasses().that().resideInAPackage("pe.quipu.etl..")
            .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..", "jakarta.servlet..",
                    "org.glassfish.jersey..", "org.eclipse.jetty..")
            .because("the ETL is a batch program: it reads config.yml as the API does, and serves nothing");
}
