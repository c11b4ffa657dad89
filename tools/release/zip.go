package main

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// ZipEntry is one file of an archive.
type ZipEntry struct {
	Name string
	Mode fs.FileMode
	Data []byte
}

// WriteZip writes a reproducible zip: the entries sorted by name, each with its mode and the
// one timestamp given (in UTC, so that the machine's time zone cannot change the DOS time
// fields), deflated. The same entries and timestamp give the same bytes.
func WriteZip(path string, entries []ZipEntry, modified time.Time) error {
	data, err := ZipBytes(entries, modified)
	if err != nil {
		return err
	}

	return os.WriteFile(path, data, 0o644)
}

// ZipBytes is WriteZip's archive in memory.
func ZipBytes(entries []ZipEntry, modified time.Time) ([]byte, error) {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b ZipEntry) int { return strings.Compare(a.Name, b.Name) })

	var buf bytes.Buffer

	zw := zip.NewWriter(&buf)

	for _, e := range sorted {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: modified.UTC()}
		h.SetMode(e.Mode)

		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}

		if _, err := w.Write(e.Data); err != nil {
			return nil, err
		}
	}

	if err := zw.Close(); err != nil {
		return nil, err
	}

	return buf.Bytes(), nil
}
