package pe.quipu.api.testing;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.validation.BaseValidator;
import pe.quipu.api.QuipuConfiguration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A configuration file as the API's bootstrap reads it: the YamlConfigurationFactory Dropwizard's default factory
 * factory makes (unknown names refused), its object mapper, the substitutor QuipuApplication installs, the "dw"
 * prefix, and validation.
 */
public final class ConfigFiles {

    private ConfigFiles() {
    }

    public static QuipuConfiguration read(Path file) throws IOException, ConfigurationException {
        return new DefaultConfigurationFactoryFactory<QuipuConfiguration>()
                .create(QuipuConfiguration.class, BaseValidator.newValidator(), Jackson.newObjectMapper(), "dw")
                .build(new SubstitutingSourceProvider(new FileConfigurationSourceProvider(),
                        new EnvironmentVariableSubstitutor(false)), file.toString());
    }

    /** {@link #read(Path)} of this YAML, written to a temporary file for the reading. */
    public static QuipuConfiguration read(String yaml) throws IOException, ConfigurationException {
        Path file = Files.createTempFile("quipu-config-", ".yml");
        try {
            Files.writeString(file, yaml);
            return read(file);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
