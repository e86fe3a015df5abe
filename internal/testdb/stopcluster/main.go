// Command stopcluster stops the private PostgreSQL that database tests share (see package
// testdb), unless another test process on the machine still holds a lease on it. It exits 0
// when it stopped the server, none ran, or another process uses it, and 1 when the server
// cannot be stopped. `make test` runs its suite through ./internal/testdb/testsuite, which
// does the same at the end.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/citahq/cita/internal/testdb"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := stop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "stopcluster: %v\n", err)
		os.Exit(1)
	}
}

func stop(ctx context.Context) error {
	if os.Getenv(testdb.EnvURL) != "" {
		fmt.Printf("stopcluster: %s is set, tests use that server; nothing to stop\n", testdb.EnvURL)
		return nil
	}
	dir := testdb.SharedClusterDir()
	res, err := testdb.StopSharedCluster(ctx)
	if err != nil {
		return err
	}
	switch res {
	case testdb.Stopped:
		fmt.Printf("stopcluster: stopped the test cluster in %s\n", dir)
	case testdb.NotRunning:
		fmt.Printf("stopcluster: no test cluster running in %s\n", dir)
	case testdb.InUse:
		fmt.Printf("stopcluster: the test cluster in %s is in use by another test process (lease %s); left running\n", dir, testdb.LeasePath())
	}
	return nil
}
