package io.tierroute.deploy.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Keeps {@code cluster up} and {@code cluster down} on one state directory from running at once: a {@code down} during
 * an {@code up} stopped a broker the {@code up} then reported ready and recorded. An OS lock
 * ({@link FileChannel#tryLock}) on {@value #FILE} in the directory, which the OS drops when the process ends, however
 * it ends; the file names the operation and pid holding it, for the other one's refusal.
 */
public final class ClusterDirLock implements AutoCloseable {

    /** The lock file under the cluster directory. */
    public static final String FILE = ".cluster.lock";

    /**
     * Locks this JVM holds, by file. The OS lock belongs to the process, so a second channel of this JVM would not be
     * refused by it, and closing that channel would drop it (POSIX): a second acquire here never opens one.
     */
    private static final Map<Path, ClusterDirLock> HELD = new HashMap<>();

    /** Another {@code up} or {@code down} holds the directory. */
    public static final class Held extends IllegalStateException {
        Held(String message) {
            super(message);
        }
    }

    private final Path file;
    private final String operation;
    private final FileChannel channel;
    private final FileLock lock;

    private ClusterDirLock(Path file, String operation, FileChannel channel, FileLock lock) {
        this.file = file;
        this.operation = operation;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code dir} (created if missing) for {@code operation} ({@code "up"}, {@code "down"}), at once or not at all.
     *
     * @throws Held when another operation holds it, naming that operation and its pid as far as the file tells them
     */
    public static ClusterDirLock acquire(Path dir, String operation) {
        Path d = dir.toAbsolutePath().normalize();
        Path file = d.resolve(FILE);
        synchronized (HELD) {
            ClusterDirLock mine = HELD.get(file);
            if (mine != null) {
                throw held(d, mine.operation + " " + ProcessHandle.current().pid());
            }
            FileChannel channel = null;
            try {
                Files.createDirectories(d);
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock();
                if (lock == null) {
                    String holder = read(channel);
                    channel.close();
                    throw held(d, holder);
                }
                channel.truncate(0);
                channel.write(ByteBuffer.wrap((operation + " " + ProcessHandle.current().pid() + "\n")
                        .getBytes(StandardCharsets.UTF_8)), 0);
                ClusterDirLock l = new ClusterDirLock(file, operation, channel, lock);
                HELD.put(file, l);
                return l;
            } catch (IOException e) {
                closeQuietly(channel);
                throw new IllegalStateException("could not lock " + file + ": " + reason(e), e);
            }
        }
    }

    /** What went wrong, with which path: the message of some of these exceptions is the bare path. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException f) {
            return "no such file or directory: " + f.getFile();
        }
        if (e instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (e instanceof FileAlreadyExistsException f) { // from createDirectories: the path is there, as a file
            return f.getFile() + " exists and is not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(Locale.ROOT) + (f.getFile() == null ? "" : ": " + f.getFile());
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** "a 'cluster up' is in progress on DIR (pid N); ..." from the holder's line ("up 1234"), or less if it is unreadable. */
    static Held held(Path dir, String holder) {
        String[] words = holderWords(holder);
        String who = words != null ? inProgressOn(dir, words)
                : "another 'cluster up' or 'cluster down' is in progress on " + dir;
        return new Held(who + "; wait for it or stop it");
    }

    /** A holder's line ("up 1234") as its operation and pid, or null when it is not one. */
    private static String[] holderWords(String holder) {
        String[] words = holder.strip().split("\\s+");
        return words.length == 2 && words[1].matches("\\d{1,18}") ? words : null;
    }

    private static String inProgressOn(Path dir, String[] holderWords) {
        return "a 'cluster " + holderWords[0] + "' is in progress on " + dir + " (pid " + holderWords[1] + ")";
    }

    /**
     * The {@code cluster up} or {@code down} running on {@code dir} as its lock file names it ("up 1234", a live pid
     * other than this JVM), without taking the lock (a {@code status} must not make an {@code up} fail); empty when none
     * runs. The file keeps its last holder's line, whose pid is then gone.
     */
    public static java.util.Optional<String> inProgress(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        try {
            String[] words = holderWords(Files.readString(d.resolve(FILE), StandardCharsets.UTF_8));
            long pid = words == null ? -1 : Long.parseLong(words[1]);
            if (pid >= 0 && pid != ProcessHandle.current().pid()
                    && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return java.util.Optional.of(inProgressOn(d, words));
            }
        } catch (IOException | RuntimeException e) {
            // no lock file, or one being written: nothing known to run
        }
        return java.util.Optional.empty();
    }

    private static String read(FileChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(256);
        channel.read(b, 0);
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    /**
     * Releases the lock; once the JVM is shutting down (Ctrl-C), it keeps it: the OS drops it as the process exits,
     * after the shutdown hooks, e.g. {@code cluster up}'s stop of what it had started, are done.
     */
    @Override
    public void close() {
        if (shuttingDown()) {
            return;
        }
        synchronized (HELD) {
            HELD.remove(file, this);
            try {
                lock.release();
            } catch (IOException ignored) {
                // closing the channel below releases it too
            }
            closeQuietly(channel);
        }
    }

    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }
}
