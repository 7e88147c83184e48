package io.nodelabeller.publish;

/** A publish did not complete. {@code status} is the HTTP status when there was one, else 0. */
public class PublishException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    public PublishException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
