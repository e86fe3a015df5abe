package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// OIDCConfig accepts ID tokens of one OpenID Connect issuer.
type OIDCConfig struct {
	Issuer         string   // the iss the tokens carry; discovery reads <Issuer>/.well-known/openid-configuration
	Audience       string   // the aud they must carry (cita's client id)
	AllowedDomains []string // e-mail domains of members; any other e-mail is refused
	EmailClaim     string   // default "email"
	// HTTPClient fetches discovery and the JWKS; nil means a client with a 10s timeout.
	HTTPClient *http.Client
}

// OIDCVerifier checks bearer JWTs: signature against the issuer's JWKS (found by discovery and
// refreshed by go-oidc when an unknown key id appears), iss, aud and exp, then the e-mail claim,
// email_verified (required and true: a token without it is refused, since an issuer that does
// not say the address is verified may let anyone claim any address), and the e-mail's domain. Discovery happens at the first token and
// is retried at the next one when the issuer cannot be reached.
type OIDCVerifier struct {
	cfg     OIDCConfig
	allowed []string

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// NewOIDCVerifier returns a verifier for cfg; it does no I/O.
func NewOIDCVerifier(cfg OIDCConfig) *OIDCVerifier {
	if cfg.EmailClaim == "" {
		cfg.EmailClaim = "email"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	v := &OIDCVerifier{cfg: cfg}
	for _, d := range cfg.AllowedDomains {
		v.allowed = append(v.allowed, strings.ToLower(strings.TrimSpace(d)))
	}
	return v
}

// errIssuerUnavailable marks a failure to reach the issuer (discovery), as opposed to a bad token.
var errIssuerUnavailable = errors.New("identity provider unavailable")

// Verify checks raw and returns its e-mail and expiry. Its error says what is wrong with the
// token, or wraps errIssuerUnavailable when the issuer could not be asked.
func (v *OIDCVerifier) Verify(ctx context.Context, raw string) (email string, expires time.Time, err error) {
	verifier, err := v.idVerifier(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	tok, err := verifier.Verify(oidc.ClientContext(ctx, v.cfg.HTTPClient), raw)
	if err != nil {
		var expired *oidc.TokenExpiredError
		if errors.As(err, &expired) {
			return "", time.Time{}, fmt.Errorf("OIDC token expired at %s: sign in again", expired.Expiry.UTC().Format(time.RFC3339))
		}
		return "", time.Time{}, fmt.Errorf("OIDC token rejected: %w", err)
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return "", time.Time{}, fmt.Errorf("OIDC token claims: %w", err)
	}
	email, _ = claims[v.cfg.EmailClaim].(string)
	email = strings.TrimSpace(email)
	if email == "" || domainOf(email) == "" {
		return "", time.Time{}, fmt.Errorf("OIDC token has no e-mail in claim %q: request the email scope", v.cfg.EmailClaim)
	}
	if verified, present := claims["email_verified"]; !present || !isTrue(verified) {
		return "", time.Time{}, fmt.Errorf("OIDC token's e-mail %s is not verified by the issuer (email_verified is missing or not true)", email)
	}
	if !slices.Contains(v.allowed, domainOf(email)) {
		return "", time.Time{}, fmt.Errorf("OIDC token's e-mail %s is outside the allowed domains (mcp.oidc.allowed_domains)", email)
	}
	return email, tok.Expiry, nil
}

// isTrue accepts the boolean true and the string "true" (some issuers send strings).
func isTrue(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(x, "true")
	}
	return false
}

// idVerifier runs discovery once it succeeds; until then every call tries again.
func (v *OIDCVerifier) idVerifier(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.verifier != nil {
		return v.verifier, nil
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	provider, err := oidc.NewProvider(oidc.ClientContext(dctx, v.cfg.HTTPClient), v.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery at %s: %w", errIssuerUnavailable, v.cfg.Issuer, err)
	}
	v.verifier = provider.Verifier(&oidc.Config{ClientID: v.cfg.Audience})
	return v.verifier, nil
}
