package io.nodelabeller.daemon;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The daemon's HTTP side: {@code /healthz} (the process answers), {@code /readyz} (a publish succeeded
 * recently) and {@code /metrics} (Prometheus text). The JDK server with no executor runs every request on its
 * one dispatcher thread: the endpoints are tiny and scraped rarely, so one thread is all the agent spends.
 */
public final class Endpoints implements AutoCloseable {

    private final HttpServer server;

    private Endpoints(HttpServer server) {
        this.server = server;
    }

    /** Binds {@code address} (port 0 = any free port) and starts serving. */
    public static Endpoints start(InetSocketAddress address, PrometheusRegistry registry, BooleanSupplier ready)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/healthz", ex -> reply(ex, 200, "ok\n"));
        server.createContext("/readyz", ex -> {
            if (ready.getAsBoolean()) {
                reply(ex, 200, "ok\n");
            } else {
                reply(ex, 503, "no successful publish within the last two intervals\n");
            }
        });
        server.createContext("/metrics", new MetricsHandler(Metrics.PROPERTIES, registry));
        server.setExecutor(null);
        server.start();
        return new Endpoints(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        try (ex) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            if ("HEAD".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(status, -1);
                return;
            }
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
