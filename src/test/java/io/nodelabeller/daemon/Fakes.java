package io.nodelabeller.daemon;

import io.nodelabeller.feature.Features;
import io.nodelabeller.label.Label;
import io.nodelabeller.label.LabelValidity;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** Test doubles for the daemon: sources that can be made to fail, a labeler per source, recording publishers. */
final class Fakes {

    private Fakes() {
    }

    /** A test source and the name it runs under (the catalog names the real ones). */
    abstract static class NamedSource implements Source {
        final String name;

        NamedSource(String name) {
            this.name = name;
        }
    }

    /** Source {@code name} with attribute {@code <name>.value}, or failing when {@link #fail} is set. */
    static final class FakeSource extends NamedSource {
        final AtomicReference<String> value = new AtomicReference<>("1");
        volatile boolean fail;

        FakeSource(String name) {
            super(name);
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
            public List<Label> labels(Features features) {
                String v = features.attribute(source + ".value", "v");
                return v == null ? List.of() : List.of(Label.of(source + "-value", v, source, "test"));
            }
        };
    }

    static String key(String source) {
        return LabelValidity.NFD_PREFIX + source + "-value";
    }

    static Discovery discovery(NamedSource... sources) {
        Map<String, Source> named = new LinkedHashMap<>();
        for (NamedSource s : sources) {
            named.put(s.name, s);
        }
        return new Discovery(new HostFs(Path.of("/nonexistent-host-root")), named);
    }

    static Labelling labelling(String... sources) {
        Map<String, Labeler> out = new LinkedHashMap<>();
        for (String s : sources) {
            out.put(s, labeler(s));
        }
        return new Labelling(out, LabelValidity.defaults(), null);
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

    /**
     * Waits until {@code t} is parked (waiting for something) or has ended, and says whether it is still alive. Tests
     * of "close waits for the running cycle" start close() on {@code t} and release the cycle only after this, so a
     * close() that does not wait has returned (and fails the test) instead of racing the release.
     */
    static boolean awaitParked(Thread t) throws InterruptedException {
        return awaitParkedIn(t, CycleScheduler.class.getName(), "close");
    }

    /** As {@link #awaitParked}, parked inside {@code className.method} (not in some lock on the way there). */
    static boolean awaitParkedIn(Thread t, String className, String method) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Thread.State s = t.getState();
            if (s == Thread.State.TERMINATED) {
                return false;
            }
            if ((s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) && java.util.Arrays.stream(t.getStackTrace())
                    .anyMatch(f -> f.getClassName().equals(className) && f.getMethodName().equals(method))) {
                return true;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("thread " + t.getName() + " neither parked in " + className + "." + method + " nor ended within 60 s");
    }
}
