package io.nodelabeller.bench;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The floor under the agent, run by {@link FloorBench} on the production runtime: what any Java program that reads a
 * Node from an API server must do, and nothing else. It trusts one CA (as the agent trusts its service account's),
 * GETs a URL with the JDK's HTTP client over TLS, reads the JSON into a map with Jackson databind and writes it back,
 * then prints one line ("response") and repeats once a second for SECONDS (0: once, then exit).
 *
 * <pre>Floor URL CA_PEM SECONDS</pre>
 */
public final class Floor {

    private Floor() {
    }

    public static void main(String[] args) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream ca = Files.newInputStream(Path.of(args[1]))) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(tls).build();
        ObjectMapper json = new ObjectMapper();
        HttpRequest get = HttpRequest.newBuilder(URI.create(args[0])).build();
        long end = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        boolean first = true;
        do {
            HttpResponse<byte[]> response = client.send(get, HttpResponse.BodyHandlers.ofByteArray());
            Map<?, ?> node = json.readValue(response.body(), Map.class);
            if (response.statusCode() != 200 || json.writeValueAsBytes(node).length == 0) {
                throw new IllegalStateException("HTTP " + response.statusCode());
            }
            if (first) {
                System.out.println("response " + response.version());
                System.out.flush();
                first = false;
            }
            if (System.nanoTime() < end) {
                Thread.sleep(1000);
            }
        } while (System.nanoTime() < end);
        Runtime.getRuntime().halt(0); // not waiting for the client's selector thread: the time to exit is not the floor's
    }
}
