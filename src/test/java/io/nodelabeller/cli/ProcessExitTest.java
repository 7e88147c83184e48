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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code main} does before the VM exits: the JDK HTTP client's selector thread waits in native code for as
 * long as its client is reachable, and the VM's exit waits up to 300 ms for such threads (hotspot's
 * VM_Exit::wait_for_threads_in_native_to_block). The name the thread gets is the JDK's
 * ({@code jdk.internal.net.http.HttpClientImpl.SelectorManager}: "HttpClient-" + id + "-SelectorManager"); the first
 * check fails if a JDK names it otherwise.
 * <p>
 * The check runs in a JVM of its own ({@link #main}): {@link Main#endHttpClientSelectors} ends every such thread of
 * its JVM, which in the tests' JVM would end the clients other tests keep (the test control plane's administrator).
 */
class ProcessExitTest {

    private static List<Thread> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager"))
                .toList();
    }

    @Test
    void theHttpClientsSelectorThreadsAreEndedBeforeTheExit() throws Exception {
        Process child = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ProcessExitTest.class.getName()).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), out);
        assertEquals(0, child.exitValue(), out);
    }

    /** The check: exit 0 when the selector threads ran and {@link Main#endHttpClientSelectors} ended them all, else 1. */
    public static void main(String[] args) throws Exception {
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
            if (selectors.isEmpty()) {
                System.out.println("the JDK's HTTP client runs no thread named HttpClient-N-SelectorManager");
                System.exit(1);
            }

            Main.endHttpClientSelectors();

            for (Thread t : selectors) {
                if (t.isAlive()) {
                    System.out.println(t.getName() + " still runs (and would hold the VM's exit for 300 ms)");
                    System.exit(1);
                }
            }
            Reference.reachabilityFence(client); // the client is still referenced: only the interrupt ended it
        } finally {
            server.stop(0);
        }
        System.exit(0);
    }
}
