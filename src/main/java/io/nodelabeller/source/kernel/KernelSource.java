package io.nodelabeller.source.kernel;

import io.nodelabeller.config.KernelConfig;
import io.nodelabeller.feature.Features;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The running kernel: {@code kernel.version} from {@code /proc/sys/kernel/osrelease}. */
public final class KernelSource implements Source {

    static final String OSRELEASE = "/proc/sys/kernel/osrelease";
    private static final Pattern VERSION = Pattern.compile("^(\\d+)(\\.(\\d+))?(\\.(\\d+))?(-.*)?$");

    private final KernelConfig config;

    public KernelSource(KernelConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public Features discover(HostFs host, Warnings warnings) throws Exception {
        Features.Builder b = Features.builder(name());
        String raw = host.read(OSRELEASE).trim();
        String full = trimEnds(raw.replaceAll("[^-A-Za-z0-9_.]", "_"));
        b.attribute("version", "full", full);
        Matcher m = VERSION.matcher(full);
        boolean matched = m.matches();
        b.attribute("version", "major", matched ? nullToEmpty(m.group(1)) : "");
        b.attribute("version", "minor", matched ? nullToEmpty(m.group(3)) : "");
        b.attribute("version", "revision", matched ? nullToEmpty(m.group(5)) : "");
        b.origin("version", host.path(OSRELEASE).toString());
        return b.build();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String trimEnds(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && "-_.".indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (end > start && "-_.".indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }
}
