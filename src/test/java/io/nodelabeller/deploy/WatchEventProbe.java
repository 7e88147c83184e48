package io.nodelabeller.deploy;

import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Run by {@link ShadedJarIT} in a JVM whose only fabric8 is the shaded jar: reads watch events the way fabric8's
 * watch does (a {@code WatchEvent}, whose object is typed "any resource") and prints each object's class.
 */
public final class WatchEventProbe {

    private WatchEventProbe() {
    }

    public static void main(String[] args) {
        KubernetesSerialization serialization = new KubernetesSerialization();
        for (String event : args) {
            WatchEvent e = serialization.unmarshal(event, WatchEvent.class);
            System.out.println("object " + e.getObject().getClass().getName());
        }
    }
}
