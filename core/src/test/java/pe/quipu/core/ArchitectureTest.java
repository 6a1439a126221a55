package pe.quipu.core;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** core is shared by the Dropwizard API and the Spring Batch ETL, so it may depend on neither. */
@AnalyzeClasses(packages = "pe.quipu.core", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule core_is_free_of_dropwizard = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat().resideInAnyPackage("io.dropwizard..", "com.codahale.metrics..")
            .because("core is shared with the ETL and must not drag in the web framework");

    @ArchTest
    static final ArchRule core_is_free_of_spring = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework..")
            .because("core is shared with the API and must not drag in the batch framework");

    @ArchTest
    static final ArchRule core_is_free_of_jax_rs = noClasses().that().resideInAPackage("pe.quipu.core..")
            .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..", "org.glassfish.jersey..",
                    "org.eclipse.jetty..")
            .because("HTTP mapping belongs to the api module");
}
