package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;


/** {@code daemon:} — the HTTP endpoints of {@code run}: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
public record DaemonConfig(int port) {

    public static final DaemonConfig DEFAULT = new DaemonConfig(8080);

    static DaemonConfig read(YamlNode n) {
        n.object("port");
        return new DaemonConfig(n.child("port").integer(DEFAULT.port(), 0, 65535));
    }
}
