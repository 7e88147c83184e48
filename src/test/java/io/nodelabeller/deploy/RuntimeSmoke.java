package io.nodelabeller.deploy;

import java.net.http.HttpClient;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import javax.crypto.KeyAgreement;
import javax.net.ssl.SSLContext;

/**
 * Run by {@link RuntimeImageIT} INSIDE the jlink'd runtime: touches what {@code print} does not reach but the
 * daemon will, and what jdeps cannot see (service providers, native code). Prints one line per check; any
 * missing module ends it with an exception and a non-zero exit.
 */
public final class RuntimeSmoke {

    private RuntimeSmoke() {
    }

    public static void main(String[] args) throws Exception {
        // TLS to the API server: ECDHE key exchange and EC certificates come from the jdk.crypto.ec provider.
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(new ECGenParameterSpec("secp256r1"));
        KeyAgreement.getInstance("ECDH");
        System.out.println("ec " + ec.generateKeyPair().getPublic().getAlgorithm());
        SSLContext tls = SSLContext.getInstance("TLSv1.3");
        tls.init(null, null, null);
        System.out.println("tls " + String.join(",", tls.getSupportedSSLParameters().getProtocols()));
        // Trust: the runtime has no CA bundle, so what fabric8 trusts is the cluster CA it is given (args[0], a PEM
        // as a service account's ca.crt) and nothing else; without one, nothing (fabric8's SSLUtils.trustManagers,
        // the path its HTTP client factory takes).
        System.out.println("jdk default CAs " + acceptedIssuers(null));
        System.out.println("fabric8 CAs with ca.crt " + acceptedIssuers(args.length > 0 ? args[0] : null));
        // fabric8's HTTP transport (java.net.http) and its client classes.
        System.out.println("http " + HttpClient.newHttpClient().version());
        Class.forName("io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory").getDeclaredConstructor().newInstance();
        System.out.println("fabric8 " + Class.forName("io.fabric8.kubernetes.client.KubernetesClientBuilder").getName());
        // The endpoints of `run` (/healthz, /readyz, /metrics): the JDK HTTP server, unbound.
        com.sun.net.httpserver.HttpServer.create();
        System.out.println("httpserver ok");
        // JNA: unpacks its native stub into jna.tmpdir and calls into libc.
        int pid = com.sun.jna.NativeLibrary.getInstance("c").getFunction("getpid").invokeInt(new Object[0]);
        System.out.println("jna " + com.sun.jna.Native.POINTER_SIZE + " pid " + (pid == ProcessHandle.current().pid()));
        // Metrics' JVM view (java.management).
        System.out.println("uptime " + (java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() >= 0));
    }

    private static int acceptedIssuers(String caFile) throws Exception {
        io.fabric8.kubernetes.client.Config config = new io.fabric8.kubernetes.client.ConfigBuilder(
                io.fabric8.kubernetes.client.Config.empty()).withCaCertFile(caFile).build();
        int n = 0;
        for (javax.net.ssl.TrustManager tm : io.fabric8.kubernetes.client.internal.SSLUtils.trustManagers(config)) {
            n += ((javax.net.ssl.X509TrustManager) tm).getAcceptedIssuers().length;
        }
        return n;
    }
}
