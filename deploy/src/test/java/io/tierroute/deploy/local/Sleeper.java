package io.tierroute.deploy.local;

/** A child JVM for {@link ChildJvmTest}: prints a line, then sleeps until it is stopped. */
public final class Sleeper {
    private Sleeper() {}

    public static void main(String[] args) throws InterruptedException {
        System.out.println("sleeper up");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
