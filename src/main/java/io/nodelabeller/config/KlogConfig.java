package io.nodelabeller.config;

import io.nodelabeller.config.yaml.YamlNode;
import java.util.List;

/**
 * {@code core.klog:} — NFD's klog logging flags. Accepted so that an existing nfd-worker.conf loads, checked
 * for type, and otherwise ignored: node-labeller logs through SLF4J/Logback (docs/configuration.md, NFD worker keys).
 */
final class KlogConfig {

    private static final List<String> BOOLEANS = List.of("addDirHeader", "alsologtostderr", "logtostderr",
            "skipHeaders", "skipLogHeaders");
    private static final List<String> STRINGS = List.of("logBacktraceAt", "logDir", "logFile", "vmodule");

    private KlogConfig() {
    }

    static void check(YamlNode n) {
        n.object("addDirHeader", "alsologtostderr", "logBacktraceAt", "logDir", "logFile", "logFileMaxSize",
                "logtostderr", "skipHeaders", "skipLogHeaders", "stderrthreshold", "v", "vmodule");
        if (n.isMissing() || !n.json().isObject()) {
            return;
        }
        BOOLEANS.forEach(k -> n.child(k).bool(false));
        STRINGS.forEach(k -> n.child(k).string(""));
        n.child("logFileMaxSize").integer(1800, 0, Integer.MAX_VALUE);
        n.child("v").integer(0, 0, 100);
        YamlNode threshold = n.child("stderrthreshold");
        // klog takes a severity number (0 INFO .. 3 FATAL) or its name
        String t = threshold.string(null);
        if (t != null) {
            if (!List.of("0", "1", "2", "3", "INFO", "WARNING", "ERROR", "FATAL").contains(t.toUpperCase(java.util.Locale.ROOT))) {
                threshold.problem("expected 0..3 or INFO, WARNING, ERROR, FATAL, got '" + t + "'");
            }
        }
    }
}
