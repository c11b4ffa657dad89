package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// OpenPGP public key algorithms (RFC 4880 9.1) that the Terraform Registry accepts: RSA (1,
// and the deprecated sign-only 3) and DSA (17). EdDSA (22) and ECDSA (19), gpg's default
// since 2.3, are refused by the registry when the key is added.
var registryAlgorithms = []string{"1", "3", "17"}

// CheckSigningKey checks that the secret key given by fingerprint is in the keyring and that
// every key of it that can sign (the primary and its signing subkeys) is RSA or DSA.
func CheckSigningKey(ctx context.Context, fingerprint string) error {
	var out bytes.Buffer
	if err := run(ctx, "", nil, &out, "gpg", "--batch", "--with-colons", "--fixed-list-mode",
		"--list-secret-keys", fingerprint); err != nil {
		return fmt.Errorf("no secret key %s in the keyring (GNUPGHOME): %w", fingerprint, err)
	}

	return checkKeyAlgorithms(fingerprint, out.String())
}

// checkKeyAlgorithms judges gpg's --with-colons listing of one secret key.
func checkKeyAlgorithms(fingerprint, listing string) error {
	signers := 0

	for _, line := range strings.Split(listing, "\n") {
		f := strings.Split(line, ":")
		if len(f) < 12 || (f[0] != "sec" && f[0] != "ssb") {
			continue
		}

		// field 2: validity (r revoked, e expired); field 12: capabilities (s: can sign)
		if f[1] == "r" || f[1] == "e" || !strings.Contains(f[11], "s") {
			continue
		}

		signers++

		if !slices.Contains(registryAlgorithms, f[3]) {
			return fmt.Errorf("key %s signs with OpenPGP algorithm %s: %w (generate one with "+
				"`gpg --quick-generate-key NAME rsa4096 sign never`)", fingerprint, f[3], errKeyAlgorithm)
		}
	}

	if signers == 0 {
		return fmt.Errorf("key %s has no usable signing key", fingerprint)
	}

	return nil
}
