package io.nodelabeller.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What a fabric8 mock API server received: the tests count requests at the server. */
public final class ServerRequests {

    private ServerRequests() {
    }

    /**
     * The requests received since the last call, as "METHOD path?query", taken until none arrives for
     * {@code quietMillis}.
     */
    public static List<String> drain(KubernetesMockServer server, long quietMillis) {
        List<String> out = new ArrayList<>();
        try {
            RecordedRequest r;
            while ((r = server.takeRequest(quietMillis, TimeUnit.MILLISECONDS)) != null) {
                out.add(r.getMethod() + " " + r.getPath());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }
}
