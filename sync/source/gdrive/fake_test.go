package gdrive_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeDrive is a loopback Google Drive speaking the v3 JSON wire format: files.list with
// pagination, files.get (metadata and alt=media), files.export, permissions.list,
// changes.getStartPageToken and changes.list.
type fakeDrive struct {
	mu       sync.Mutex
	files    map[string]*fakeFile
	order    []string
	changes  []fakeChange
	pageSize int // server-side cap, to force pagination

	failListPage    int             // files.list page (1-based) answered with a 500
	failMedia       map[string]bool // file ids whose download answers 500
	failPermissions map[string]bool // file ids whose permissions.list answers 500
	exportTooBig    map[string]bool // file ids whose export answers exportSizeLimitExceeded
	mediaRequests   int             // downloads and exports served
	listPages       int
	channels        []fakeChannel // push channels (changes.watch), notified on every change
}

type fakeFile struct {
	ID, Name, MimeType, Content, DriveID string
	Version                              int64
	Trashed                              bool
	Perms                                []map[string]string
	Properties                           map[string]string // custom file properties
}

type fakeChange struct {
	fileID  string
	removed bool
}

func newFakeDrive(t *testing.T) (*fakeDrive, *httptest.Server) {
	f := &fakeDrive{files: map[string]*fakeFile{}, pageSize: 2, failMedia: map[string]bool{}, exportTooBig: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /drive/v3/files", f.list)
	mux.HandleFunc("GET /drive/v3/files/{id}", f.get)
	mux.HandleFunc("GET /drive/v3/files/{id}/export", f.export)
	mux.HandleFunc("GET /drive/v3/files/{id}/permissions", f.permissions)
	mux.HandleFunc("GET /drive/v3/changes/startPageToken", f.startToken)
	mux.HandleFunc("GET /drive/v3/changes", f.changesList)
	mux.HandleFunc("POST /drive/v3/changes/watch", f.watch)
	mux.HandleFunc("POST /drive/v3/channels/stop", f.stopChannel)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

// put creates or updates a file, bumping its version and logging a change, as Drive does for
// content and permission edits.
func (f *fakeDrive) put(file fakeFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, ok := f.files[file.ID]; ok {
		file.Version = old.Version + 1
	} else {
		file.Version = 1
		f.order = append(f.order, file.ID)
	}
	f.files[file.ID] = &file
	f.changes = append(f.changes, fakeChange{fileID: file.ID})
	f.notifyLocked()
}

func (f *fakeDrive) update(id string, edit func(*fakeFile)) {
	f.mu.Lock()
	file := *f.files[id]
	f.mu.Unlock()
	edit(&file)
	f.put(file)
}

func (f *fakeDrive) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.files, id)
	f.changes = append(f.changes, fakeChange{fileID: id, removed: true})
	f.notifyLocked()
}

func (f *fakeDrive) fileJSON(file *fakeFile) map[string]any {
	m := map[string]any{
		"id": file.ID, "name": file.Name, "mimeType": file.MimeType, "version": strconv.FormatInt(file.Version, 10),
		"modifiedTime": "2026-03-01T10:00:00.000Z", "webViewLink": "https://drive.example/" + file.ID,
		"trashed": file.Trashed, "owners": []map[string]string{{"emailAddress": "owner@example.com"}},
	}
	if !strings.HasPrefix(file.MimeType, "application/vnd.google-apps.") {
		sum := md5.Sum([]byte(file.Content))
		m["md5Checksum"], m["size"] = hex.EncodeToString(sum[:]), strconv.Itoa(len(file.Content))
	}
	ids := make([]string, len(file.Perms))
	for i := range file.Perms {
		ids[i] = fmt.Sprintf("p%d", i)
	}
	m["permissionIds"] = ids
	if len(file.Properties) > 0 {
		m["properties"] = file.Properties
	}
	if file.DriveID != "" {
		m["driveId"] = file.DriveID // shared-drive files carry no permissions in listings
	} else {
		m["permissions"] = file.Perms
	}
	return m
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg, "errors": []map[string]string{{"domain": "global", "reason": reason, "message": msg}},
	}})
}

func (f *fakeDrive) page(r *http.Request, n int) (start, end int) {
	start, _ = strconv.Atoi(r.URL.Query().Get("pageToken"))
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	if size <= 0 || size > f.pageSize {
		size = f.pageSize
	}
	return start, min(start+size, n)
}

func (f *fakeDrive) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listPages++
	if f.failListPage > 0 && f.listPages == f.failListPage {
		writeError(w, http.StatusInternalServerError, "backendError", "Backend Error")
		return
	}
	if q := r.URL.Query().Get("q"); q != "trashed = false" {
		writeError(w, http.StatusBadRequest, "invalid", "unexpected q "+q)
		return
	}
	var live []*fakeFile
	for _, id := range f.order {
		if file, ok := f.files[id]; ok && !file.Trashed {
			live = append(live, file)
		}
	}
	start, end := f.page(r, len(live))
	out := map[string]any{"files": []any{}}
	var files []any
	for _, file := range live[start:end] {
		files = append(files, f.fileJSON(file))
	}
	if files != nil {
		out["files"] = files
	}
	if end < len(live) {
		out["nextPageToken"] = strconv.Itoa(end)
	}
	writeJSON(w, out)
}

func (f *fakeDrive) get(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "notFound", "File not found")
		return
	}
	if r.URL.Query().Get("alt") != "media" {
		writeJSON(w, f.fileJSON(file))
		return
	}
	f.mediaRequests++
	if strings.HasPrefix(file.MimeType, "application/vnd.google-apps.") {
		writeError(w, http.StatusForbidden, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
		return
	}
	if f.failMedia[file.ID] {
		writeError(w, http.StatusInternalServerError, "backendError", "Backend Error")
		return
	}
	_, _ = w.Write([]byte(file.Content))
}

func (f *fakeDrive) export(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "notFound", "File not found")
		return
	}
	f.mediaRequests++
	if f.exportTooBig[file.ID] {
		writeError(w, http.StatusForbidden, "exportSizeLimitExceeded", "This file is too large to be exported.")
		return
	}
	want := map[string]string{
		"application/vnd.google-apps.document":     "text/markdown",
		"application/vnd.google-apps.spreadsheet":  "text/csv",
		"application/vnd.google-apps.presentation": "text/plain",
	}[file.MimeType]
	if got := r.URL.Query().Get("mimeType"); got != want {
		writeError(w, http.StatusBadRequest, "badRequest", "unexpected export type "+got)
		return
	}
	w.Header().Set("Content-Type", want)
	_, _ = w.Write([]byte(file.Content))
}

func (f *fakeDrive) permissions(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "notFound", "File not found")
		return
	}
	if f.failPermissions[file.ID] {
		writeError(w, http.StatusInternalServerError, "backendError", "Backend Error")
		return
	}
	if r.URL.Query().Get("supportsAllDrives") != "true" && file.DriveID != "" {
		writeError(w, http.StatusNotFound, "notFound", "Shared drive file not found without supportsAllDrives")
		return
	}
	writeJSON(w, map[string]any{"permissions": file.Perms})
}

func (f *fakeDrive) startToken(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	writeJSON(w, map[string]any{"startPageToken": strconv.Itoa(len(f.changes))})
}

func (f *fakeDrive) changesList(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	start, end := f.page(r, len(f.changes))
	var out []any
	for _, c := range f.changes[start:end] {
		ch := map[string]any{"changeType": "file", "fileId": c.fileID, "removed": c.removed}
		if file, ok := f.files[c.fileID]; ok && !c.removed {
			ch["file"] = f.fileJSON(file)
		}
		out = append(out, ch)
	}
	res := map[string]any{"changes": out}
	if end < len(f.changes) {
		res["nextPageToken"] = strconv.Itoa(end)
	} else {
		res["newStartPageToken"] = strconv.Itoa(len(f.changes))
	}
	writeJSON(w, res)
}
