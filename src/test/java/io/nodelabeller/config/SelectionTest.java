package io.nodelabeller.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SelectionTest {
    private static final List<String> KNOWN = List.of("pci", "kernel", "cpu");

    @Test
    void nfdSyntax() {
        assertEquals(KNOWN, Selection.resolve(List.of("all"), KNOWN, "source"));
        assertEquals(List.of("pci", "cpu"), Selection.resolve(List.of("all", "-kernel"), KNOWN, "source"));
        assertEquals(List.of("pci", "cpu"), Selection.resolve(List.of("cpu", "pci"), KNOWN, "source"));
        assertEquals(List.of(), Selection.resolve(List.of(), KNOWN, "source"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Selection.resolve(List.of("gpu"), KNOWN, "source"));
        assertEquals("unknown source 'gpu' (known: all, pci, kernel, cpu)", e.getMessage());
    }
}
