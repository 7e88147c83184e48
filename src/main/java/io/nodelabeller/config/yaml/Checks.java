package io.nodelabeller.config.yaml;

import java.util.List;
import java.util.regex.Pattern;

/** Validations of list values shared by the source sections; each bad element is a problem at its own path. */
public final class Checks {

    /**
     * A DNS-1123 subdomain ({@code example.com}), as Kubernetes validates label-key prefixes and resource names
     * (k8s.io/apimachinery/pkg/util/validation: {@code dns1123SubdomainFmt}); length is checked apart.
     */
    public static final String DNS1123_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";


    private Checks() {
    }

    /** A list of strings whose every element matches {@code pattern}. */
    public static List<String> matching(YamlNode n, List<String> dflt, Pattern pattern, String expected) {
        return checkEach(n, dflt, pattern, (element, value) -> element.problem("expected " + expected + ", got '" + value + "'"));
    }

    /**
     * A list of strings NFD takes as they are, where a value of the wrong shape can only never match (a class
     * prefix that is not hex, an option name with a space): kept, with a warning at its key path, so that a
     * migrated config runs as it did under NFD ({@code check-config} lists it).
     */
    public static List<String> matchingOrWarn(YamlNode n, List<String> dflt, Pattern pattern, String expected) {
        return checkEach(n, dflt, pattern, (element, value) -> element.warn("expected " + expected + ", got '" + value
                + "': kept as NFD keeps it, it can never match"));
    }

    /** The list at {@code n} ({@code dflt} when absent), {@code misfit} called for each given element not matching. */
    private static List<String> checkEach(YamlNode n, List<String> dflt, Pattern pattern,
                                          java.util.function.BiConsumer<YamlNode, String> misfit) {
        List<String> values = n.strings(dflt);
        if (values != dflt) {
            for (int i = 0; i < values.size(); i++) {
                if (!pattern.matcher(values.get(i)).matches()) {
                    misfit.accept(n.element(i), values.get(i));
                }
            }
        }
        return values;
    }

    /**
     * A list of names taken as NFD takes {@code deviceLabelFields} (source/pci/pci.go, source/usb/usb.go): an
     * unknown name is ignored with a warning; a list with no known name means {@code dflt}, with a warning. The
     * result keeps {@code known}'s order, as the labels join the fields in it.
     */
    public static List<String> knownOrDefault(YamlNode n, List<String> dflt, List<String> known) {
        List<String> given = n.strings(dflt);
        if (given == dflt) {
            return dflt;
        }
        for (int i = 0; i < given.size(); i++) {
            if (!known.contains(given.get(i))) {
                n.element(i).warn("unknown field '" + given.get(i) + "' ignored, as NFD ignores it (known: "
                        + String.join(", ", known) + ")");
            }
        }
        List<String> valid = known.stream().filter(given::contains).toList();
        if (valid.isEmpty()) {
            n.warn("no known field: the default " + String.join(",", dflt) + " applies, as in NFD");
            return dflt;
        }
        return valid;
    }
}
