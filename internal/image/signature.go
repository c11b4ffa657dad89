package image

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// Signature errors, wrapped by VerifySignature.
var (
	// ErrUnsigned: the image has no unikorn:digest.
	ErrUnsigned = errors.New("image is not signed: property \"unikorn:digest\" is missing or empty")
	// ErrBadSignature: unikorn:digest is not a valid signature of the image ID.
	ErrBadSignature = errors.New("invalid image signature")
)

// ParseSigningKey decodes the image signing key: a PEM "PUBLIC KEY" block
// holding a PKIX (SubjectPublicKeyInfo) ECDSA key on any curve Go supports
// (P-256, P-384, P-521, P-224). Text around the block is ignored. The errors
// say what was found instead, so that they read well as plan-time
// diagnostics.
func ParseSigningKey(pemText string) (*ecdsa.PublicKey, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("no PEM block found: expected a \"-----BEGIN PUBLIC KEY-----\" block")
	}

	if block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("PEM block is %q, expected \"PUBLIC KEY\" (a PKIX ECDSA public key, e.g. from \"openssl ec -pubout\")", block.Type)
	}

	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing PKIX public key: %w", err)
	}

	switch k := key.(type) {
	case *ecdsa.PublicKey:
		return k, nil
	case *rsa.PublicKey:
		return nil, errors.New("the key is an RSA key, an ECDSA key is required")
	case ed25519.PublicKey:
		return nil, errors.New("the key is an Ed25519 key, an ECDSA key is required")
	default:
		return nil, fmt.Errorf("the key is a %T, an ECDSA key is required", key)
	}
}

// VerifySignature checks that digestB64 (the unikorn:digest property) is the
// standard base64 encoding of an ASN.1 ECDSA signature, by key, of the
// SHA-256 hash of imageID. The errors wrap ErrUnsigned or ErrBadSignature.
func VerifySignature(key *ecdsa.PublicKey, imageID, digestB64 string) error {
	if key == nil {
		return fmt.Errorf("%w: no signing key", ErrBadSignature)
	}

	digestB64 = strings.TrimSpace(digestB64)
	if digestB64 == "" {
		return ErrUnsigned
	}

	signature, err := base64.StdEncoding.DecodeString(digestB64)
	if err != nil {
		return fmt.Errorf("%w: property %q is not valid base64: %w", ErrBadSignature, PropertyDigest, err)
	}

	hash := sha256.Sum256([]byte(imageID))

	if !ecdsa.VerifyASN1(key, hash[:], signature) {
		return fmt.Errorf("%w: property %q is not a signature of the image ID by the configured signing key", ErrBadSignature, PropertyDigest)
	}

	return nil
}
