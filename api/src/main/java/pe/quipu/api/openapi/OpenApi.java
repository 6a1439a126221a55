package pe.quipu.api.openapi;

import io.dropwizard.core.setup.Environment;

/** The OpenAPI document, public, read once at start; the tests hold it to the resources and their answers. */
public final class OpenApi {

    private OpenApi() {
    }

    /** Serves {@code /v1/openapi.json} and {@code /v1/openapi.yaml}. */
    public static void serve(Environment environment) {
        environment.jersey().register(new OpenApiResource(OpenApiDocument.load()));
    }
}
