package io.nodelabeller.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (gcc's fake NVML, kubectl, jq, bwrap, a Kubernetes release's binaries): without
 * it the test is skipped with a warning on a developer's machine and fails under {@code CI=true}, so that CI never
 * passes by skipping.
 */
public final class Prerequisites {

    private Prerequisites() {
    }

    /** Skips the test (fails it under CI=true) unless {@code present}; {@code missing} says what is missing and what is not tested. */
    public static void require(boolean present, String missing) {
        if (present) {
            return;
        }
        if ("true".equals(System.getenv("CI"))) {
            Assertions.fail(missing + " (CI=true requires it; .ci/run installs what it can)");
        }
        System.err.println("WARNING: SKIPPED: " + missing);
        Assumptions.abort(missing);
    }
}
