package s3_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/source/s3"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// faultyS3 wraps the loopback S3 server, counting object downloads and failing chosen requests.
type faultyS3 struct {
	next      http.Handler
	mu        sync.Mutex
	downloads int
	failList  string // a prefix whose listing answers 500
	failGet   string // a key whose download answers 500
}

func (f *faultyS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	isList := r.Method == http.MethodGet && r.URL.Query().Has("list-type") || r.URL.Query().Has("prefix")
	isGet := r.Method == http.MethodGet && !isList && strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1
	failList := isList && f.failList != "" && r.URL.Query().Get("prefix") == f.failList
	failGet := isGet && f.failGet != "" && strings.HasSuffix(r.URL.Path, "/"+f.failGet)
	if isGet {
		f.downloads++
	}
	f.mu.Unlock()
	if failList || failGet {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`))
		return
	}
	f.next.ServeHTTP(w, r)
}

func (f *faultyS3) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.downloads
}

// TestBucketSync syncs a bucket through minio-go against gofakes3: prefix filters, excludes,
// access groups from prefix rules, ETag fingerprints, edits, deletions and faults.
func TestBucketSync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fault := &faultyS3{next: gofakes3.New(s3mem.New()).Server()}
	srv := httptest.NewServer(fault)
	t.Cleanup(srv.Close)
	endpoint := strings.TrimPrefix(srv.URL, "http://")
	admin, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4("key", "secret", ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.MakeBucket(ctx, "docs", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	put := func(key, body string) {
		t.Helper()
		if _, err := admin.PutObject(ctx, "docs", key, bytes.NewReader([]byte(body)), int64(len(body)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put("handbook/guia.md", "# Guía\n\nEl proceso de compras usa la plataforma jaguar.\n")
	put("handbook/draft-borrador.md", "# Borrador\n\nNo publicar.\n")
	put("hr/nomina.txt", "La nómina se paga el día 28, código llama.\n")
	put("hr/foto.png", "\x89PNG")
	put("other/fuera.md", "# Fuera\n\nFuera de los prefijos.\n")

	conn, err := s3.New(config.SourceConfig{Name: "bucket", Type: "s3",
		Access: config.AccessRules{DefaultGroups: []string{"everyone"}, Rules: []config.AccessRule{{Match: "hr/**", Groups: []string{"hr"}}}},
		S3: config.S3Source{Endpoint: endpoint, Bucket: "docs", Prefixes: []string{"handbook/", "hr/"}, Exclude: []string{"**/draft-*"},
			AccessKeyID: "key", SecretAccessKey: "secret", PathStyle: true, Insecure: true, URLBase: "https://files.example/docs"},
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	src := syncrun.Source{Name: "bucket", Connector: conn}
	ix := synctest.New(t)

	res := ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Added != 2 || res.Run.Listed != 2 || res.Run.Failed != 0 {
		t.Fatalf("first run: %+v %v", res.Run, res.Failures)
	}
	docs := ix.Docs(t, "bucket")
	if !slices.Equal(docs["hr/nomina.txt"].Groups, []string{"hr"}) || !slices.Equal(docs["handbook/guia.md"].Groups, []string{"everyone"}) {
		t.Fatalf("groups: %v / %v", docs["hr/nomina.txt"].Groups, docs["handbook/guia.md"].Groups)
	}
	if !strings.HasPrefix(docs["hr/nomina.txt"].Fingerprint, "etag:") {
		t.Fatalf("fingerprint %q is not an ETag", docs["hr/nomina.txt"].Fingerprint)
	}

	downloads := fault.count()
	if res = ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Unchanged != 2 || fault.count() != downloads {
		t.Fatalf("unchanged re-sync: %+v, %d downloads", res.Run, fault.count()-downloads)
	}

	put("handbook/guia.md", "# Guía\n\nEl proceso de compras usa la plataforma puma.\n")
	guia := docs["handbook/guia.md"].ID
	if res = ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Changed != 1 || res.Run.Unchanged != 1 {
		t.Fatalf("edit: %+v", res.Run)
	}

	// Listing of the second prefix fails: what was listed is indexed, nothing is deleted.
	if err := admin.RemoveObject(ctx, "docs", "handbook/guia.md", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	fault.failList = "hr/"
	res, err = ix.Runner.Run(ctx, src, syncrun.RunOptions{})
	if err == nil || res.Run.Complete || res.Run.Deleted != 0 {
		t.Fatalf("failed listing: %v %+v", err, res.Run)
	}
	if _, ok := ix.Docs(t, "bucket")["hr/nomina.txt"]; !ok {
		t.Fatal("a failed listing deleted a document")
	}
	fault.failList = ""

	// A failed download keeps the old version; the deletion goes through in the same run.
	put("hr/nomina.txt", "La nómina se paga el día 30, código alpaca.\n")
	fault.failGet = "hr/nomina.txt"
	before := ix.Docs(t, "bucket")["hr/nomina.txt"]
	res = ix.MustRun(t, src, syncrun.RunOptions{})
	if res.Run.Failed != 1 || res.Run.Deleted != 1 {
		t.Fatalf("run with a failed download: %+v", res.Run)
	}
	if ix.Docs(t, "bucket")["hr/nomina.txt"].Version != before.Version {
		t.Fatal("failed download replaced the previous version")
	}
	if ix.Answerable(t, "plataforma puma compras", rag.MustScope("everyone"), guia) {
		t.Fatal("deleted object still answers after one run")
	}
	fault.failGet = ""
	if res = ix.MustRun(t, src, syncrun.RunOptions{}); res.Run.Changed != 1 || res.Run.Failed != 0 {
		t.Fatalf("retry: %+v", res.Run)
	}
}
