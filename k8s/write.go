package k8s

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// file is one object's manifest and the file it goes to in a directory;
// the names sort in the order to apply them (kubectl apply -f DIR).
type file struct {
	name string
	obj  any
}

func (m *Manifests) files() []file {
	return []file{
		{"00-configmap.yaml", m.Config},
		{"00-secret.yaml", m.Secret},
		{"01-service.yaml", m.Service},
		{"02-merge-job.yaml", m.Merge},
		{"03-load-job.yaml", m.Load},
	}
}

// Marshal is every object as YAML, separated by "---" (kubectl apply -f -).
func (m *Manifests) Marshal() ([]byte, error) {
	var b bytes.Buffer
	for i, f := range m.files() {
		y, err := yaml.Marshal(f.obj)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Write writes the manifests to stdout when dir is "-", else one file per
// object into dir (made if missing), each file whole or not at all.
func (m *Manifests) Write(dir string, stdout io.Writer) ([]string, error) {
	if dir == "-" {
		b, err := m.Marshal()
		if err != nil {
			return nil, err
		}
		_, err = stdout.Write(b)
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range m.files() {
		y, err := yaml.Marshal(f.obj)
		if err != nil {
			return written, fmt.Errorf("%s: %w", f.name, err)
		}
		path := filepath.Join(dir, f.name)
		if err := atomicfile.WriteBytes(path, y); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}
