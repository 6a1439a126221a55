package pe.quipu.etl;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.paramnames.ParameterNamesModule;
import io.dropwizard.jackson.AnnotationSensitivePropertyNamingStrategy;
import io.dropwizard.jackson.FuzzyEnumModule;
import io.dropwizard.validation.BaseValidator;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Valid;
import jakarta.validation.Validator;
import jakarta.validation.executable.ExecutableValidator;
import jakarta.validation.metadata.BeanDescriptor;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import pe.quipu.core.db.DatabaseSettings;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.ruc.ChangesSettings;
import pe.quipu.core.fx.SunatFxSettings;
import pe.quipu.core.ruc.SearchSettings;
import pe.quipu.etl.run.EtlSettings;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.stream.Collectors;

/**
 * config.yml as the ETL reads it: the API's own file, read the way the API's bootstrap reads it (Dropwizard's
 * configuration factory, the same {@code ${NAME:-default}} substitution, the same {@code dw.} system-property
 * overrides, the same validation) into the same {@code database:}, {@code bcrp:} and {@code sunatFx:} classes, plus
 * the ETL's own {@code etl:} section, and {@code search:}, which both read. The API's other sections are none of the ETL's business; within a section every name must
 * be known, as in the API.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class EtlConfiguration {

    @NotNull
    @Pattern(regexp = "development|production", message = "must be development or production (QUIPU_ENV)")
    @JsonProperty
    private String environment = "development";

    @Valid
    @NotNull
    @JsonProperty
    private DatabaseSettings database = new DatabaseSettings();

    @Valid
    @NotNull
    @JsonProperty
    private BcrpSettings bcrp = new BcrpSettings();

    @Valid
    @NotNull
    @JsonProperty
    private SunatFxSettings sunatFx = new SunatFxSettings();

    @Valid
    @NotNull
    @JsonProperty
    private EtlSettings etl = new EtlSettings();

    /** Whether the padrón load builds the index of search by name (the API's same section says whether it answers). */
    @Valid
    @NotNull
    @JsonProperty
    private SearchSettings search = new SearchSettings();

    /** The change log's retention (the API's) and the share of the registry a load may remove (the padrón's guard). */
    @Valid
    @NotNull
    @JsonProperty
    private ChangesSettings changes = new ChangesSettings();

    /**
     * Reads and validates {@code file}.
     *
     * @throws ConfigurationException for a value that does not parse or is not valid; {@link #describe} says
     *                                which, on one line
     */
    public static EtlConfiguration read(Path file) throws IOException, ConfigurationException {
        // Hibernate Validator starts on a thread of its own while Jackson starts and reads the file on this one: both
        // load hundreds of classes, a good part of a run's start on two processors.
        FutureTask<Validator> validator = new FutureTask<>(BaseValidator::newValidator);
        Thread.ofPlatform().name("quipu-etl-validator").daemon().start(validator);
        // The API's bootstrap makes its factory the same way: a YamlConfigurationFactory whose mapper refuses
        // unknown names (this class lets the API's sections through at the top level only).
        ConfigurationFactory<EtlConfiguration> factory = new DefaultConfigurationFactoryFactory<EtlConfiguration>()
                .create(EtlConfiguration.class, new ValidatorWhenReady(validator), mapper(), "dw");
        return factory.build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                new EnvironmentVariableSubstitutor(false)), file.toString());
    }

    /**
     * Dropwizard's mapper ({@code Jackson.newObjectMapper()}) as it reads these sections: the same enum, parameter-name,
     * Optional and java.time handling and the same property names, without what they never need and a run's start paid
     * for (420 ms of a 2.5 s start): every Jackson module on the classpath looked up and loaded, Guava's and Caffeine's
     * types, Blackbird's generated accessors, and the subtype resolver that reads every {@code Discoverable}
     * (Dropwizard's polymorphic server and logging factories, which only the API's sections use).
     */
    static ObjectMapper mapper() {
        ObjectMapper mapper = new ObjectMapper();
        mapper.registerModule(new FuzzyEnumModule());
        mapper.registerModule(new ParameterNamesModule());
        mapper.registerModule(new Jdk8Module());
        mapper.registerModule(new JavaTimeModule());
        mapper.setPropertyNamingStrategy(new AnnotationSensitivePropertyNamingStrategy());
        mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        return mapper;
    }

    /** The validator being built, once it is. */
    private record ValidatorWhenReady(Future<Validator> built) implements Validator {
        private Validator validator() {
            try {
                return built.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the validator starts", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }

        @Override
        public <T> Set<ConstraintViolation<T>> validate(T object, Class<?>... groups) {
            return validator().validate(object, groups);
        }

        @Override
        public <T> Set<ConstraintViolation<T>> validateProperty(T object, String propertyName, Class<?>... groups) {
            return validator().validateProperty(object, propertyName, groups);
        }

        @Override
        public <T> Set<ConstraintViolation<T>> validateValue(Class<T> beanType, String propertyName, Object value,
                                                             Class<?>... groups) {
            return validator().validateValue(beanType, propertyName, value, groups);
        }

        @Override
        public BeanDescriptor getConstraintsForClass(Class<?> clazz) {
            return validator().getConstraintsForClass(clazz);
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            return validator().unwrap(type);
        }

        @Override
        public ExecutableValidator forExecutables() {
            return validator().forExecutables();
        }
    }

    /**
     * The errors of a configuration the ETL refused, on one line for cron's mail: {@code config.yml has an error:
     * etl.maxRejectedShare must be less than or equal to 1}.
     */
    public static String describe(Path file, ConfigurationException e) {
        Collection<String> errors = e.getErrors();
        return file + (errors.size() == 1 ? " has an error: " : " has errors: ") + errors.stream()
                .map(error -> error.strip().replaceAll("\\s*\\R\\s*", " "))
                .collect(Collectors.joining("; "));
    }

    public String environment() {
        return environment;
    }

    public boolean isProduction() {
        return "production".equals(environment);
    }

    public DatabaseSettings database() {
        return database;
    }

    public BcrpSettings bcrp() {
        return bcrp;
    }

    public SunatFxSettings sunatFx() {
        return sunatFx;
    }

    public EtlSettings etl() {
        return etl;
    }

    public SearchSettings search() {
        return search;
    }

    public ChangesSettings changes() {
        return changes;
    }
}
