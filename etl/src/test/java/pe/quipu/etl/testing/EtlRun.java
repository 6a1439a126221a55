package pe.quipu.etl.testing;

/** What one ETL command printed and returned. */
public record EtlRun(int exitCode, String stdout, String stderr) {

    /** The run's id, from the summary line's "(run N)". */
    public long runId() {
        return runIdOf(stdout);
    }

    /** The run id in a summary line. */
    public static long runIdOf(String summary) {
        return Long.parseLong(summary.replaceAll("(?s).*\\(run (\\d+)\\).*", "$1"));
    }
}
