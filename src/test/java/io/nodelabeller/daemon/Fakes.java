package io.nodelabeller.daemon;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelRules;
import io.nodelabeller.label.LabelSet;
import io.nodelabeller.label.Labeler;
import io.nodelabeller.label.Labelling;
import io.nodelabeller.publish.PublishException;
import io.nodelabeller.publish.Publisher;
import io.nodelabeller.source.Discovery;
import io.nodelabeller.source.HostFs;
import io.nodelabeller.source.Source;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** Test doubles for the daemon: sources that can be made to fail, a labeler per source, recording publishers. */
final class Fakes {

    private Fakes() {
    }

    /** Source {@code name} with attribute {@code <name>.value}, or failing when {@link #fail} is set. */
    static final class FakeSource implements Source {
        final String name;
        final AtomicReference<String> value = new AtomicReference<>("1");
        volatile boolean fail;

        FakeSource(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Features discover(HostFs host, Warnings warnings) throws Exception {
            if (fail) {
                throw new java.io.IOException(name + " is broken");
            }
            return Features.builder(name).attribute("value", "v", value.get()).build();
        }
    }

    /** Labels {@code <source>-value=<v>} (prefixed with feature.node.kubernetes.io/ by Labelling). */
    static Labeler labeler(String source) {
        return new Labeler() {
            @Override
            public String name() {
                return source;
            }

            @Override
            public List<Label> labels(Features features) {
                String v = features.attribute(source + ".value", "v");
                return v == null ? List.of() : List.of(Label.of(source + "-value", v, source, "test"));
            }
        };
    }

    static String key(String source) {
        return LabelRules.NFD_PREFIX + source + "-value";
    }

    static Discovery discovery(Source... sources) {
        return new Discovery(new HostFs(Path.of("/nonexistent-host-root")), List.of(sources));
    }

    static Labelling labelling(String... sources) {
        List<Labeler> out = new ArrayList<>();
        for (String s : sources) {
            out.add(labeler(s));
        }
        return new Labelling(out, LabelRules.defaults(), null);
    }

    /** Records what it was asked to publish; throws {@link #failWith} when set. */
    static class RecordingPublisher implements Publisher {
        final String name;
        final List<Map<String, String>> published = new CopyOnWriteArrayList<>();
        volatile Exception failWith;

        RecordingPublisher(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean publish(LabelSet desired) throws PublishException {
            published.add(desired.asMap());
            if (failWith instanceof PublishException pe) {
                throw pe;
            }
            if (failWith instanceof RuntimeException re) {
                throw re;
            }
            return published.size() == 1 || !published.get(published.size() - 2).equals(desired.asMap());
        }

        Map<String, String> last() {
            return published.get(published.size() - 1);
        }
    }

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

        void advance(Duration d) {
            now.updateAndGet(i -> i.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }
}
