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
        List<String> values = n.strings(dflt);
        if (values != dflt) {
            for (int i = 0; i < values.size(); i++) {
                if (!pattern.matcher(values.get(i)).matches()) {
                    n.element(i).problem("expected " + expected + ", got '" + values.get(i) + "'");
                }
            }
        }
        return values;
    }

}
