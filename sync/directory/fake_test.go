package directory_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// fakeDirectory is a loopback Admin SDK Directory API speaking its JSON wire format:
// groups.list (by customer or domain) and members.list, both paginated.
type fakeDirectory struct {
	mu       sync.Mutex
	groups   []fakeGroup
	pageSize int
	// failMembers answers members.list of this group id with a 403 (a scope not granted).
	failMembers string
	groupLists  int // groups.list pages served
	lastQuery   map[string]string
}

type fakeGroup struct {
	ID, Email string
	Members   []map[string]string // id, email, type (USER, GROUP, CUSTOMER), status, role
}

func newFakeDirectory(t *testing.T) (*fakeDirectory, *httptest.Server) {
	f := &fakeDirectory{pageSize: 2}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /admin/directory/v1/groups", f.listGroups)
	mux.HandleFunc("GET /admin/directory/v1/groups/{key}/members", f.listMembers)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeDirectory) set(groups ...fakeGroup) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups = groups
}

func (f *fakeDirectory) page(r *http.Request, n int) (start, end int, next string) {
	start, _ = strconv.Atoi(r.URL.Query().Get("pageToken"))
	size, _ := strconv.Atoi(r.URL.Query().Get("maxResults"))
	if size <= 0 || size > f.pageSize {
		size = f.pageSize
	}
	end = min(start+size, n)
	if end < n {
		next = strconv.Itoa(end)
	}
	return start, end, next
}

func (f *fakeDirectory) listGroups(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groupLists++
	f.lastQuery = map[string]string{"customer": r.URL.Query().Get("customer"), "domain": r.URL.Query().Get("domain")}
	if f.lastQuery["customer"] == "" && f.lastQuery["domain"] == "" {
		writeError(w, http.StatusBadRequest, "badRequest", "Bad Request")
		return
	}
	start, end, next := f.page(r, len(f.groups))
	var out []map[string]any
	for _, g := range f.groups[start:end] {
		out = append(out, map[string]any{"kind": "admin#directory#group", "id": g.ID, "email": g.Email,
			"directMembersCount": strconv.Itoa(len(g.Members))})
	}
	body := map[string]any{"kind": "admin#directory#groups", "groups": out}
	if next != "" {
		body["nextPageToken"] = next
	}
	writeJSON(w, body)
}

func (f *fakeDirectory) listMembers(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := r.PathValue("key")
	if key == f.failMembers {
		writeError(w, http.StatusForbidden, "forbidden", "Not Authorized to access this resource/api")
		return
	}
	for _, g := range f.groups {
		if g.ID != key && g.Email != key {
			continue
		}
		start, end, next := f.page(r, len(g.Members))
		var out []map[string]any
		for _, m := range g.Members[start:end] {
			item := map[string]any{"kind": "admin#directory#member"}
			for k, v := range m {
				item[k] = v
			}
			out = append(out, item)
		}
		body := map[string]any{"kind": "admin#directory#members", "members": out}
		if next != "" {
			body["nextPageToken"] = next
		}
		writeJSON(w, body)
		return
	}
	writeError(w, http.StatusNotFound, "notFound", "Resource Not Found: groupKey")
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

func user(email string) map[string]string {
	return map[string]string{"id": "u-" + email, "email": email, "type": "USER", "status": "ACTIVE", "role": "MEMBER"}
}

func group(email string) map[string]string {
	return map[string]string{"id": "g-" + email, "email": email, "type": "GROUP", "role": "MEMBER"}
}
