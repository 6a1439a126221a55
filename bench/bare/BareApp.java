import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.io.IOException;
import java.nio.file.Files;

/**
 * The baseline of bench/lookups.sh: a Dropwizard application with nothing in it but one Jersey resource that answers
 * Quipu's lookup paths with bytes captured from Quipu (files ruc.json, ubigeos.json, tipo-cambio.json in the folder
 * named by the system property bare.dir, read once at start), as application/json. No authentication, metering,
 * database or metrics of its own: what Dropwizard, Jersey and Jetty cost for such an answer.
 *
 * <pre>javac -cp api/target/quipu-api.jar -d CLASSES bench/bare/BareApp.java
 * java -Xmx256m -Dbare.dir=DIR -cp api/target/quipu-api.jar:CLASSES BareApp server bench/bare/bare.yml</pre>
 */
public final class BareApp extends Application<Configuration> {

    public static void main(String[] args) throws Exception {
        new BareApp().run(args);
    }

    @Override
    public void run(Configuration configuration, Environment environment) throws IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(System.getProperty("bare.dir", "."));
        environment.jersey().register(new Answers(Files.readAllBytes(dir.resolve("ruc.json")),
                Files.readAllBytes(dir.resolve("ubigeos.json")), Files.readAllBytes(dir.resolve("tipo-cambio.json"))));
    }

    /** The same paths as Quipu's, so that the benchmark sends both the very same requests. */
    @Path("/v1")
    @Produces(MediaType.APPLICATION_JSON)
    public static final class Answers {
        private final byte[] ruc;
        private final byte[] ubigeos;
        private final byte[] tipoCambio;

        Answers(byte[] ruc, byte[] ubigeos, byte[] tipoCambio) {
            this.ruc = ruc;
            this.ubigeos = ubigeos;
            this.tipoCambio = tipoCambio;
        }

        /** Any RUC: the one captured answer. */
        @GET
        @Path("ruc/{ruc}")
        public byte[] ruc(@PathParam("ruc") String number) {
            return ruc;
        }

        @GET
        @Path("ubigeos")
        public byte[] ubigeos() {
            return ubigeos;
        }

        @GET
        @Path("tipo-cambio")
        public byte[] tipoCambio() {
            return tipoCambio;
        }
    }
}
