package mystery

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// ClassKey is the teacher's secret: with it a seed draws a mystery nobody
// else can draw, the students' mystery id is an HMAC of the seed and level
// that says nothing of the devices, and the counters the mystery saves are
// sealed (AES-GCM) so that only `reveal --key-file` reads them.
type ClassKey string

// Errors of the class key.
var (
	ErrNoKey    = errors.New("this mystery was drawn with a class key: reveal needs --key-file (the teacher's)")
	ErrWrongKey = errors.New("this key does not open this mystery (another class's key?)")
	ErrKeyFile  = errors.New("class key file: want one line of 32 to 128 hex digits")
)

// NewClassKey returns a fresh key: 32 random bytes, in hex.
func NewClassKey() ClassKey {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go ≥ 1.24)
	return ClassKey(hex.EncodeToString(b))
}

// ReadClassKey reads a key file (one line of hex).
func ReadClassKey(path string) (ClassKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("mystery: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return "", fmt.Errorf("mystery: %s: %w", path, err)
	}
	k := strings.TrimSpace(string(b))
	if _, err := hex.DecodeString(k); err != nil || len(k) < 32 || len(k) > 128 {
		return "", fmt.Errorf("%s: %w", path, ErrKeyFile)
	}
	return ClassKey(strings.ToLower(k)), nil
}

// LoadOrCreateClassKey reads path, or writes a fresh key there (mode 0600)
// when there is none; created says which.
func LoadOrCreateClassKey(path string) (k ClassKey, created bool, err error) {
	k, err = ReadClassKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, fmt.Errorf("mystery: %w", err)
	}
	k = NewClassKey()
	f, err := atomicfile.Create(path)
	if err != nil {
		return "", false, err
	}
	defer f.Abort()
	if _, err := f.WriteString(string(k) + "\n"); err != nil {
		return "", false, err
	}
	if err := f.Commit(); err != nil {
		return "", false, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return "", false, fmt.Errorf("mystery: %w", err)
	}
	return k, true, nil
}

func (k ClassKey) mac(purpose string, seed uint64, l Level) []byte {
	m := hmac.New(sha256.New, []byte(k))
	fmt.Fprintf(m, "middlebench mystery|%s|%d|%s", purpose, seed, l)
	return m.Sum(nil)
}

// drawSeeds are the two words the key mixes into the draw's generator.
func (k ClassKey) drawSeeds(seed uint64, l Level) (uint64, uint64) {
	b := k.mac("draw", seed, l)
	return binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16])
}

// MysteryID is the name students use: "SEED-LEVEL" for a practice mystery
// (no key), else 12 hex digits of an HMAC under the key.
func MysteryID(seed uint64, l Level, k ClassKey) string {
	if k == "" {
		return fmt.Sprintf("%d-%s", seed, l)
	}
	return "m" + hex.EncodeToString(k.mac("id", seed, l)[:6])
}

// ValidID refuses an id that is not one MysteryID could give (ids become
// file names).
func ValidID(id string) error {
	ok := len(id) > 0 && len(id) <= 40
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("mystery id %q: want what the mystery printed, such as m3fa9c01b22d7 or 7-one", id)
	}
	return nil
}

func (k ClassKey) aead() cipher.AEAD {
	sum := sha256.Sum256([]byte("middlebench mystery seal|" + string(k)))
	block, _ := aes.NewCipher(sum[:]) // a 32-byte key: cannot fail
	g, _ := cipher.NewGCM(block)      // AES's block size: cannot fail
	return g
}

// seal encrypts b under the key, bound to the mystery's id.
func (k ClassKey) seal(id string, b []byte) string {
	g := k.aead()
	nonce := make([]byte, g.NonceSize())
	rand.Read(nonce) //nolint:errcheck // never fails
	return base64.StdEncoding.EncodeToString(g.Seal(nonce, nonce, b, []byte(id)))
}

// open decrypts what seal gave; a wrong key is ErrWrongKey.
func (k ClassKey) open(id, sealed string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	g := k.aead()
	if err != nil || len(raw) < g.NonceSize() {
		return nil, fmt.Errorf("mystery %s: sealed counters: not base64 of a sealed box", id)
	}
	b, err := g.Open(nil, raw[:g.NonceSize()], raw[g.NonceSize():], []byte(id))
	if err != nil {
		return nil, ErrWrongKey
	}
	return b, nil
}
