package io.nodelabeller.cli;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.lang.ref.Reference;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What {@code main} does before the VM exits: the JDK HTTP client's selector thread waits in native code for as
 * long as its client is reachable, and the VM's exit waits up to 300 ms for such threads (hotspot's
 * VM_Exit::wait_for_threads_in_native_to_block). The name the thread gets is the JDK's
 * ({@code jdk.internal.net.http.HttpClientImpl.SelectorManager}: "HttpClient-" + id + "-SelectorManager"); the first
 * assertion fails if a JDK names it otherwise.
 */
class ProcessExitTest {

    private static List<Thread> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager"))
                .toList();
    }

    @Test
    void theHttpClientsSelectorThreadsAreEndedBeforeTheExit() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
            List<Thread> selectors = selectorThreads();
            assertFalse(selectors.isEmpty(), "the JDK's HTTP client runs a thread named HttpClient-N-SelectorManager");

            Main.endHttpClientSelectors();

            for (Thread t : selectors) {
                assertFalse(t.isAlive(), t.getName() + " still runs (and would hold the VM's exit for 300 ms)");
            }
            Reference.reachabilityFence(client); // the client is still referenced: only the interrupt ended it
        } finally {
            server.stop(0);
        }
    }
}
