package mcpserver_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/citahq/cita/mcpserver"
)

// issuer is a loopback OpenID Connect provider: discovery, a JWKS with one RSA key, and real
// RS256-signed ID tokens.
type issuer struct {
	url string
	key *rsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.url, "jwks_uri": is.url + "/keys", "authorization_endpoint": is.url + "/auth",
			"token_endpoint": is.url + "/token", "id_token_signing_alg_values_supported": []string{"RS256"},
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &key.PublicKey, KeyID: "k1", Algorithm: string(jose.RS256), Use: "sig"}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.url = srv.URL
	return is
}

// sign returns a compact JWT of claims signed with key (the issuer's unless another is given).
func sign(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOIDCTokens(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	b := setup(t, setupOptions{oidc: mcpserver.NewOIDCVerifier(mcpserver.OIDCConfig{
		Issuer: is.url, Audience: "cita-mcp", AllowedDomains: []string{"norvik.example"}})})
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{"iss": is.url, "aud": "cita-mcp", "sub": "u-17", "email": hanna, "email_verified": true,
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		if change != nil {
			change(c)
		}
		return c
	}
	cases := []struct {
		name  string
		token string
		want  string // "" means accepted
	}{
		{"valid", sign(t, is.key, claims(nil)), ""},
		{"email_verified absent", sign(t, is.key, claims(func(c map[string]any) { delete(c, "email_verified") })), "not verified"},
		{"email_verified not a boolean", sign(t, is.key, claims(func(c map[string]any) { c["email_verified"] = 1 })), "not verified"},
		{"expired", sign(t, is.key, claims(func(c map[string]any) { c["exp"] = now.Add(-time.Hour).Unix() })), "OIDC token expired"},
		{"another audience", sign(t, is.key, claims(func(c map[string]any) { c["aud"] = "another-app" })), "audience"},
		{"another issuer", sign(t, is.key, claims(func(c map[string]any) { c["iss"] = "https://evil.example" })), "issued by a different provider"},
		{"signed by another key", sign(t, other, claims(nil)), "signature"},
		{"e-mail not verified", sign(t, is.key, claims(func(c map[string]any) { c["email_verified"] = false })), "not verified"},
		{"domain not allowed", sign(t, is.key, claims(func(c map[string]any) { c["email"] = guest })), "outside the allowed domains"},
		{"no e-mail", sign(t, is.key, claims(func(c map[string]any) { delete(c, "email") })), "no e-mail"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := connect(context.Background(), b.url, tc.token)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("connect error %v, want one saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			// The identity is hanna's: hr documents, not finance ones.
			_, hr := call(t, cs, "get_document", map[string]any{"document_id": b.docIDs["hr"]})
			_, fin := call(t, cs, "get_document", map[string]any{"document_id": b.docIDs["finance"]})
			if !strings.Contains(hr, "CANARY-HR-M3X") || strings.Contains(fin, "CANARY-FIN-Q7D") {
				t.Fatalf("OIDC caller's scope is wrong: hr %q, finance %q", hr, fin)
			}
		})
	}
	var audited bool
	for _, l := range strings.Split(b.audit.String(), "\n") {
		audited = audited || (strings.Contains(l, `"auth":"oidc"`) && strings.Contains(l, `"email":"`+hanna+`"`))
	}
	if !audited {
		t.Fatalf("no audit line for the OIDC caller:\n%s", b.audit.String())
	}
}

func TestOIDCIssuerDownIsNotAPass(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	b := setup(t, setupOptions{oidc: mcpserver.NewOIDCVerifier(mcpserver.OIDCConfig{
		Issuer: url, Audience: "cita-mcp", AllowedDomains: []string{"norvik.example"}})})
	req, _ := http.NewRequest(http.MethodPost, b.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	// 503: clients retry later; never 200 with some default scope.
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body.Error.Message, "cannot reach the identity provider") {
		t.Fatalf("status %d, message %q", resp.StatusCode, body.Error.Message)
	}
}
