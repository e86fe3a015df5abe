// Command testsuite runs a test command (the arguments) holding a lease on the shared test
// cluster for the whole run, then stops the cluster unless another test process on the machine
// still holds one: `make test` is `go run ./internal/testdb/testsuite go test ./...`. The lease
// covers the gaps between test binaries, so a suite that ends beside this one never stops the
// cluster under it, and this one never stops it under another. It exits with the command's
// status (1 when it could not be run); a failure to stop the cluster is reported but does not
// change the status.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/citahq/cita/internal/testdb"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsuite COMMAND [ARGS...]   (e.g. testsuite go test ./...)")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	external := os.Getenv(testdb.EnvURL) != ""
	var lease *testdb.Lease
	if !external {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var err error
		lease, err = testdb.AcquireLease(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsuite: %v\n", err)
			return 1
		}
	}
	// An interrupt reaches the command too (same process group): wait for it to end, then stop.
	// (Caught, not ignored: an ignored signal would stay ignored in the command.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	status := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintf(os.Stderr, "testsuite: run %s: %v\n", args[0], err)
			status = 1
		} else {
			status = max(exit.ExitCode(), 1)
		}
	}
	if external {
		return status
	}
	lease.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := testdb.SharedClusterDir()
	switch res, err := testdb.StopSharedCluster(ctx); {
	case err != nil:
		fmt.Fprintf(os.Stderr, "testsuite: stop the test cluster in %s: %v\n", dir, err)
	case res == testdb.Stopped:
		fmt.Printf("testsuite: stopped the test cluster in %s\n", dir)
	case res == testdb.InUse:
		fmt.Printf("testsuite: the test cluster in %s is in use by another test process; left running\n", dir)
	}
	return status
}
