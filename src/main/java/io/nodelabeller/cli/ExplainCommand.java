package io.nodelabeller.cli;

import io.nodelabeller.feature.SourceStatus;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelSet;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/** {@code explain}: like print, each label followed by the source and facts that produced it. */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Discover once and print each label with the facts that produced it.")
final class ExplainCommand extends HostCommand.Inspecting {

    @Override
    int show(Inspection result) {
        PrintWriter out = spec.commandLine().getOut();
        for (Label l : result.labels().labels().values()) {
            out.println(l.key() + "=" + l.value());
            out.println("    source: " + l.tiedTo());
            if (l.evidence() != null && !l.evidence().isEmpty()) {
                out.println("    facts:  " + l.evidence());
            }
        }
        for (LabelSet.Dropped d : result.labels().dropped()) {
            out.println("# dropped " + d.label().key() + "=" + d.label().value() + " (" + d.label().source() + "): " + d.reason());
        }
        for (SourceStatus s : result.snapshot().statuses().values()) {
            if (!s.ok()) {
                out.println("# source " + s.source() + " failed: " + s.error());
            }
            for (String w : s.warnings()) {
                out.println("# source " + s.source() + " warning: " + w);
            }
        }
        out.flush();
        return Main.OK;
    }
}
