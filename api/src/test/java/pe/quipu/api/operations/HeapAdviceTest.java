package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** When a start advises a heap limit: a large default heap that nobody chose. */
class HeapAdviceTest {

    private static final long GB = 1L << 30;

    @Test
    void a_large_default_heap_is_advised_against_with_what_to_set() {
        assertThat(HeapAdvice.advice(6 * GB, List.of("-Dfile.encoding=UTF-8")))
                .hasValueSatisfying(advice -> assertThat(advice).contains("6144 MB", "JAVA_TOOL_OPTIONS=-Xmx128m",
                        "MaxRAMPercentage"));
    }

    @Test
    void a_heap_someone_chose_is_theirs_whatever_its_size() {
        assertThat(HeapAdvice.advice(6 * GB, List.of("-Xmx6g"))).isEmpty();
        assertThat(HeapAdvice.advice(6 * GB, List.of("-XX:MaxRAMPercentage=50.0"))).isEmpty();
        assertThat(HeapAdvice.advice(6 * GB, List.of("-XX:MaxHeapSize=6442450944"))).isEmpty();
        assertThat(HeapAdvice.advice(6 * GB, List.of("-XX:MaxRAM=24g"))).isEmpty();
    }

    @Test
    void a_default_heap_of_a_small_machine_or_container_is_fine() {
        assertThat(HeapAdvice.advice(HeapAdvice.LARGE, List.of())).isEmpty();
        assertThat(HeapAdvice.advice(256L << 20, List.of())).isEmpty();
    }
}
