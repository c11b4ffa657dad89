package image

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

// newKey returns an ECDSA key and its public half as PEM (PKIX).
func newKey(t testing.TB, curve elliptic.Curve) (*ecdsa.PrivateKey, string) {
	t.Helper()

	key, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	return key, publicPEM(t, key.Public())
}

func publicPEM(t testing.TB, pub any) string {
	t.Helper()

	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}

	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// sign returns the unikorn:digest of imageID.
func sign(t testing.TB, key *ecdsa.PrivateKey, imageID string) string {
	t.Helper()

	hash := sha256.Sum256([]byte(imageID))

	sig, err := ecdsa.SignASN1(rand.Reader, key, hash[:])
	if err != nil {
		t.Fatal(err)
	}

	return base64.StdEncoding.EncodeToString(sig)
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()

	for _, curve := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		t.Run(curve.Params().Name, func(t *testing.T) {
			t.Parallel()

			key, keyPEM := newKey(t, curve)
			other, _ := newKey(t, curve)

			pub, err := ParseSigningKey("operator's key:\n" + keyPEM + "\n")
			if err != nil {
				t.Fatalf("ParseSigningKey: %v", err)
			}

			const id = "0b6b3e2c-1a4d-4f0e-9d0c-3f5e6a7b8c9d"

			tests := []struct {
				name    string
				imageID string
				digest  string
				wantErr error
				wantMsg string
			}{
				{name: "valid", imageID: id, digest: sign(t, key, id)},
				{name: "valid with surrounding whitespace", imageID: id, digest: " " + sign(t, key, id) + "\n"},
				{name: "missing", imageID: id, digest: "", wantErr: ErrUnsigned},
				{name: "wrong key", imageID: id, digest: sign(t, other, id), wantErr: ErrBadSignature, wantMsg: "not a signature of the image ID"},
				{name: "tampered ID", imageID: id + "x", digest: sign(t, key, id), wantErr: ErrBadSignature},
				{name: "signature of another image", imageID: id, digest: sign(t, key, "another"), wantErr: ErrBadSignature},
				{name: "not base64", imageID: id, digest: "not*base64", wantErr: ErrBadSignature, wantMsg: "is not valid base64"},
				{name: "base64 but not ASN.1", imageID: id, digest: base64.StdEncoding.EncodeToString([]byte("hello")), wantErr: ErrBadSignature},
			}

			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()

					err := VerifySignature(pub, tt.imageID, tt.digest)
					if tt.wantErr == nil {
						if err != nil {
							t.Fatalf("VerifySignature: %v", err)
						}

						return
					}

					if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
						t.Errorf("VerifySignature error = %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
					}
				})
			}
		})
	}
}

func TestVerifySignatureNilKey(t *testing.T) {
	t.Parallel()

	if err := VerifySignature(nil, "id", "AAAA"); !errors.Is(err, ErrBadSignature) {
		t.Errorf("VerifySignature(nil key) = %v", err)
	}
}

func TestParseSigningKey(t *testing.T) {
	t.Parallel()

	_, p224 := newKey(t, elliptic.P224())

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}

	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	ecKey, _ := newKey(t, elliptic.P256())

	ecPrivDER, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		pem     string
		wantErr string
	}{
		{name: "P-224 is ECDSA too", pem: p224},
		{name: "empty", pem: "", wantErr: "no PEM block found"},
		{name: "not PEM", pem: "ssh-ed25519 AAAA...", wantErr: "no PEM block found"},
		{name: "RSA", pem: publicPEM(t, &rsaKey.PublicKey), wantErr: "the key is an RSA key, an ECDSA key is required"},
		{name: "Ed25519", pem: publicPEM(t, edPub), wantErr: "the key is an Ed25519 key, an ECDSA key is required"},
		{
			name:    "private key instead of public",
			pem:     string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecPrivDER})),
			wantErr: `PEM block is "EC PRIVATE KEY", expected "PUBLIC KEY"`,
		},
		{
			name:    "PKCS#1 RSA public key",
			pem:     string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)})),
			wantErr: `PEM block is "RSA PUBLIC KEY"`,
		},
		{
			name:    "garbage in block",
			pem:     string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte("garbage")})),
			wantErr: "parsing PKIX public key",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			key, err := ParseSigningKey(tt.pem)
			if tt.wantErr == "" {
				if err != nil || key == nil {
					t.Fatalf("ParseSigningKey = %v, %v", key, err)
				}

				return
			}

			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSigningKey error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzVerifySignature feeds arbitrary IDs and digests to the signature
// decoder: it must never panic, and must reject anything but a real signature.
func FuzzVerifySignature(f *testing.F) {
	key, keyPEM := newKey(f, elliptic.P256())

	pub, err := ParseSigningKey(keyPEM)
	if err != nil {
		f.Fatal(err)
	}

	f.Add("image-id", sign(f, key, "image-id"))
	f.Add("image-id", "")
	f.Add("", "MAYCAQECAQE=")
	f.Add("x", "====")

	f.Fuzz(func(t *testing.T, id, digest string) {
		if err := VerifySignature(pub, id, digest); err == nil && digest == "" {
			t.Errorf("empty digest verified")
		}
	})
}

// FuzzParseSigningKey: the key parser never panics.
func FuzzParseSigningKey(f *testing.F) {
	_, keyPEM := newKey(f, elliptic.P384())

	f.Add(keyPEM)
	f.Add("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
	f.Add("")

	f.Fuzz(func(t *testing.T, text string) {
		if key, err := ParseSigningKey(text); (key == nil) == (err == nil) {
			t.Errorf("ParseSigningKey(%q) = %v, %v", text, key, err)
		}
	})
}
