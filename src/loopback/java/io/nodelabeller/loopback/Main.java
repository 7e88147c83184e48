package io.nodelabeller.loopback;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The loopback API server as a process, until SIGTERM (bin/check-image.sh):
 * {@code java -cp target/loopback-classes:$(cat target/loopback.classpath) io.nodelabeller.loopback.Main
 * [--url-file FILE] [--node NAME]... [--state FILE] [--tls DIR --token TOKEN]}.
 * <ul>
 * <li>{@code --node NAME}: a Node as a kubelet registers it (its hostname and os labels), no other field;</li>
 * <li>{@code --state FILE}: the first node's JSON, rewritten whole after every change;</li>
 * <li>{@code --url-file FILE}: the server's URL, written once it listens (on a free port);</li>
 * <li>{@code --tls DIR}: TLS with a self-signed key made in DIR (DIR/ca.crt is the clients' CA), and the bearer token
 *     every request must carry; plain HTTP and no token otherwise.</li>
 * </ul>
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Path urlFile = null;
        Path state = null;
        Path tlsDir = null;
        String token = null;
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--url-file" -> urlFile = Path.of(require(args[i], value));
                case "--state" -> state = Path.of(require(args[i], value));
                case "--node" -> nodes.add(require(args[i], value));
                case "--tls" -> tlsDir = Path.of(require(args[i], value));
                case "--token" -> token = require(args[i], value);
                default -> usage("unknown argument " + args[i]);
            }
            i++;
        }
        if ((tlsDir == null) != (token == null)) {
            usage("--tls and --token go together");
        }
        if (state != null && nodes.isEmpty()) {
            usage("--state needs a --node");
        }
        LoopbackApiServer.Options options = LoopbackApiServer.Options.plain();
        if (tlsDir != null) {
            options = options.tls(LoopbackApiServer.Tls.selfSigned(Files.createDirectories(tlsDir)), token);
        }
        LoopbackApiServer server = new LoopbackApiServer(options);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "loopback-apiserver-stop"));
        if (state != null) {
            server.keepNodeIn(nodes.get(0), state);
        }
        for (String name : nodes) {
            server.putNode(LoopbackApiServer.registeredNode(name));
        }
        if (urlFile != null) {
            Path tmp = urlFile.resolveSibling(urlFile.getFileName() + ".tmp");
            Files.writeString(tmp, server.url() + "\n");
            Files.move(tmp, urlFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        System.out.println("loopback API server: " + server.url());
    }

    private static String require(String option, String value) {
        if (value == null) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static void usage(String why) {
        System.err.println("loopback API server: " + why + "\nusage: Main [--url-file FILE] [--node NAME]... "
                + "[--state FILE] [--tls DIR --token TOKEN]");
        System.exit(2);
    }
}
