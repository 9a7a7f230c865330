package partition_test

// memberMain runs a child process's part when the test binary is started
// as one; it reports whether it did.
func memberMain() bool { return false }
