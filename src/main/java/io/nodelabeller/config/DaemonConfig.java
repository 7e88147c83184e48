package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;


/**
 * {@code daemon:} — the HTTP endpoints of {@code run}: {@code /healthz}, {@code /readyz}, {@code /metrics}.
 *
 * @param port           the endpoints' port (0: any free one)
 * @param runtimeMetrics also the Prometheus client's standard JVM and process metrics ({@code jvm_*},
 *                       {@code process_*}) on {@code /metrics}; off by default: they cost about 1.7 MiB of
 *                       resident memory on every node (docs/performance.md), and the container's memory and CPU
 *                       are in the kubelet's metrics already
 */
public record DaemonConfig(int port, boolean runtimeMetrics) {

    public static final DaemonConfig DEFAULT = new DaemonConfig(8080, false);

    static DaemonConfig read(YamlNode n) {
        n.object("port", "runtimeMetrics");
        return new DaemonConfig(n.child("port").integer(DEFAULT.port(), 0, 65535),
                n.child("runtimeMetrics").bool(DEFAULT.runtimeMetrics()));
    }
}
