package pe.quipu.etl.run;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Standard error with one self-updating status line at its bottom: {@link #show} rewrites the line in place (carriage
 * return, the text, erase to the end of the line), and whatever else is written to standard error goes through
 * {@link #stream()}, which first erases the line, so that log lines never land on top of it; the next {@link #show}
 * draws it again below them.
 */
public final class TerminalLine {

    /** Carriage return: back to the start of the line. */
    private static final String START = "\r";
    /** ANSI "erase in line" (CSI K): erases from the cursor to the end of the line. */
    private static final String ERASE = "\u001b[K";
    private static final int DEFAULT_WIDTH = 80;

    private final PrintStream out;
    private final boolean terminal;
    private final PrintStream passing;
    private int width;
    private boolean shown;

    private TerminalLine(PrintStream out, boolean terminal, int width) {
        this.out = out;
        this.terminal = terminal;
        this.width = width;
        this.passing = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (TerminalLine.this) {
                    eraseLocked();
                    out.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (TerminalLine.this) {
                    eraseLocked();
                    out.write(b, off, len);
                }
            }

            @Override
            public void flush() {
                out.flush();
            }
        }, true, out.charset());
    }

    /**
     * The process's standard error, which is a terminal when its file descriptor names one (and TERM is not
     * {@code dumb}, a terminal that cannot erase a line).
     */
    public static TerminalLine standardError(PrintStream err) {
        return new TerminalLine(err, standardErrorIsTerminal(), 0);
    }

    /** {@code stream}, taken for no terminal: what only a command line's {@code --progress bar} draws a line on. */
    public static TerminalLine over(PrintStream stream) {
        return new TerminalLine(stream, false, DEFAULT_WIDTH);
    }

    /** Whether this is a terminal, where {@code --progress auto} draws the line. */
    public boolean isTerminal() {
        return terminal;
    }

    /** What everything else writes to standard error through: it erases the line first. */
    public PrintStream stream() {
        return passing;
    }

    /** The terminal's width in columns, as far as it can be told (80 otherwise), asked once. */
    public synchronized int width() {
        if (width == 0) {
            width = terminalWidth();
        }
        return width;
    }

    /** Draws {@code text} as the line, in place of the line before; {@code text} must fit {@link #width()}. */
    public synchronized void show(String text) {
        out.print(START + text + ERASE);
        out.flush();
        shown = true;
    }

    /** Erases the line, if one is shown. */
    public synchronized void erase() {
        eraseLocked();
        out.flush();
    }

    private void eraseLocked() {
        if (shown) {
            out.print(START + ERASE);
            shown = false;
        }
    }

    /**
     * Whether standard error is a terminal. On Linux its descriptor's link names a terminal device ({@code /dev/pts/N},
     * {@code /dev/ttyN}); elsewhere the JVM's console says (JDK 22 on, {@code System.console()} exists even when the
     * output is redirected: only {@code isTerminal()} tells, and it looks at standard input and output).
     */
    static boolean standardErrorIsTerminal() {
        if ("dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        Path fd = Path.of("/proc/self/fd/2");
        if (Files.exists(Path.of("/proc/self/fd"))) {
            try {
                String target = Files.readSymbolicLink(fd).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    /**
     * {@code COLUMNS} when the shell exports it, else what {@code stty size} says of the terminal, else 80; at least 20.
     */
    private static int terminalWidth() {
        try {
            String columns = System.getenv("COLUMNS");
            if (columns != null && !columns.isBlank() && Integer.parseInt(columns.strip()) > 0) {
                return Math.max(20, Integer.parseInt(columns.strip()));
            }
        } catch (NumberFormatException e) {
            // not a number: ask the terminal
        }
        try {
            Process stty = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String answer = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (stty.waitFor(2, TimeUnit.SECONDS) && stty.exitValue() == 0) {
                String[] rowsColumns = answer.split("\\s+");
                // A terminal whose size nobody set (a pseudo-terminal made by a program) says 0 0.
                if (rowsColumns.length == 2 && Integer.parseInt(rowsColumns[1]) > 0) {
                    return Math.max(20, Integer.parseInt(rowsColumns[1]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no stty, or no terminal to ask
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return DEFAULT_WIDTH;
    }
}
