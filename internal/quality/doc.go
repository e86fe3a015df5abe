// Package quality holds the tests that guard cita's published quality figures on the shared
// evaluation sets (retrieval nDCG, answer-level accuracy). They read $CITA_SHARED_DIR, which CI
// sets, and skip with a clear message when it is unset. They live outside rag/ because they
// index through sync/, which rag/ must not import.
package quality
