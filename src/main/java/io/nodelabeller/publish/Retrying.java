package io.nodelabeller.publish;

import io.nodelabeller.log.ProblemLog;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * The one failure policy of every request node-labeller sends ({@link ApiClient}): 409/422 (our copy was stale)
 * → run the attempt again at once, reading afresh (a few times); 429, 5xx, timeout, reset → exponential backoff
 * with jitter, never sooner than the server's {@code Retry-After}; other 4xx → no retry. One {@link Run} covers the
 * requests of one publish: it gives up after {@code maxAttempts} failures or when the next wait would pass
 * {@code giveUpAfter}, and the next cycle tries again. Each problem is logged when it starts or changes
 * ({@link ProblemLog}). The client must not retry by itself (see {@link KubernetesClients}), or the two layers would
 * multiply.
 */
final class Retrying {

    /** One attempt: reads what it needs afresh and sends its request(s). */
    @FunctionalInterface
    interface Attempt<T> {
        T run() throws ApiClient.Failure, InterruptedException;
    }

    /** Re-runs after a 409/422 before falling back to backoff (another writer keeps racing us). */
    static final int CONFLICT_REREADS = 3;

    private final NodePublisher.Settings settings;
    private final Backoff backoff;

    Retrying(NodePublisher.Settings settings) {
        this.settings = settings;
        this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff(), settings.random());
    }

    /**
     * The budget of one publish of {@code subject} ("node n1", "NodeFeature ns/n1"): {@code onFailure} sees every
     * failed request (metrics, dropping a cached copy), {@code hint} adds what an operator should check to a
     * status that is not retried.
     */
    Run start(String subject, ProblemLog problems, java.util.function.Consumer<ApiClient.Failure> onFailure,
              IntFunction<String> hint) {
        return new Run(subject, problems, onFailure, hint);
    }

    /** 0 = no answer (timeout, reset); 409/422 past the re-reads; 429; 5xx. */
    static boolean retryable(int status) {
        return status == 0 || status == 409 || status == 422 || status == 429 || status >= 500;
    }

    final class Run {
        private final String subject;
        private final ProblemLog problems;
        private final java.util.function.Consumer<ApiClient.Failure> onFailure;
        private final IntFunction<String> hint;
        private final long start = settings.timing().nanoTime();
        private int failures;
        private int rereads;

        private Run(String subject, ProblemLog problems, java.util.function.Consumer<ApiClient.Failure> onFailure,
                    IntFunction<String> hint) {
            this.subject = subject;
            this.problems = problems;
            this.onFailure = onFailure;
            this.hint = hint;
        }

        /** Runs {@code attempt} until it succeeds or the policy gives up (a {@link PublishException}). */
        <T> T call(Attempt<T> attempt) throws PublishException {
            while (true) {
                try {
                    return attempt.run();
                } catch (ApiClient.Failure f) {
                    onFailure.accept(f);
                    int status = f.status;
                    if ((status == 409 || status == 422) && rereads < CONFLICT_REREADS) {
                        rereads++;
                        continue;
                    }
                    if (!retryable(status)) {
                        problems.failed("http-" + status, f.getMessage() + hint.apply(status));
                        throw new PublishException(subject + ": " + f.getMessage(), status, f);
                    }
                    Duration wait = backoff.delay(failures, f.retryAfter);
                    failures++;
                    Duration elapsed = Duration.ofNanos(settings.timing().nanoTime() - start);
                    if (failures >= settings.maxAttempts() || elapsed.plus(wait).compareTo(settings.giveUpAfter()) > 0) {
                        problems.failed(kind(status), f.getMessage() + "; giving up this cycle after " + failures + " attempts");
                        throw new PublishException(subject + ": gave up after " + failures + " attempts: "
                                + f.getMessage(), status, f);
                    }
                    problems.failed(kind(status), f.getMessage() + "; retrying in " + wait.toMillis() + " ms");
                    sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PublishException(subject + ": interrupted", 0, e);
                } catch (RuntimeException e) {
                    // never let a surprise from the client kill the daemon's cycle
                    onFailure.accept(new ApiClient.Failure(0, null, e.toString(), e));
                    problems.failed("unexpected", "unexpected error: " + e);
                    throw new PublishException(subject + ": unexpected error: " + e, 0, e);
                }
            }
        }

        private void sleep(Duration wait) throws PublishException {
            try {
                settings.timing().sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PublishException(subject + ": interrupted while waiting to retry", 0, e);
            }
        }
    }

    private static String kind(int status) {
        return status == 0 ? "io" : "http-" + status;
    }
}
