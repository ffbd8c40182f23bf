package mystery

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// Answers are kept one file per answer, in a directory of the mystery's
// own: each is written whole under a name no other answer can have (its
// time and random bytes), so that thirty students answering at once, from
// as many processes, never overwrite one another, and a process killed
// mid-way leaves every answer it acknowledged. A name is claimed by the
// first answer under it; a later answer under that name is a revision,
// kept beside the first.

// Answer is one student's diagnosis: finding codes.
type Answer struct {
	Name  string   `json:"name"`
	Codes []string `json:"codes"`
	At    string   `json:"at"`            // when it was recorded (RFC 3339, ns)
	Via   string   `json:"via,omitempty"` // cli or web
	// Revision is this answer's place among its name's answers (1: the
	// first); set when read back.
	Revision int `json:"revision,omitempty"`
}

// Where an answer came from.
const (
	ViaCLI = "cli"
	ViaWeb = "web"
)

// Bounds on what a mystery keeps: a name's length, an answer file's size
// and how many answers one mystery takes (a form on a LAN must not fill
// the teacher's disk).
const (
	maxNameLen     = 64
	maxAnswerBytes = 16 << 10
	MaxAnswers     = 10000
)

// Errors of the answer book.
var (
	ErrName      = errors.New("name: give 1 to 64 letters, digits, spaces or . _ - @")
	ErrNameTaken = errors.New("this name has answered already from another place; revise with the token its first answer was given, or choose another name")
	ErrFull      = fmt.Errorf("this mystery has taken %d answers; no more are kept", MaxAnswers)
)

// CheckName trims a student's name and refuses one that is empty, too
// long, or has characters beyond letters, digits, spaces and . _ - @.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > maxNameLen {
		return "", fmt.Errorf("%w (got %q)", ErrName, name)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" ._-@", r) {
			return "", fmt.Errorf("%w (got %q)", ErrName, name)
		}
	}
	return name, nil
}

func (s *State) answersDir(id string) string { return filepath.Join(s.Dir, "answers-"+id) }

// claim is who first answered under a name: a web answer holds a token's
// hash (the token revises), a CLI answer none (the teacher's machine's own
// users are trusted to revise).
type claim struct {
	Name      string `json:"name"`
	TokenHash string `json:"tokenHash,omitempty"`
	Via       string `json:"via"`
}

func (s *State) claimPath(id, name string) string {
	h := sha256.Sum256([]byte(strings.ToLower(name)))
	return filepath.Join(s.answersDir(id), "names", hex.EncodeToString(h[:12])+".json")
}

// takeClaim claims name for c; ok is false (and the claim returned) when
// someone claimed it first. The claim is written whole under a temporary
// name and linked into place: link(2) fails if the name exists, so of two
// claims at once exactly one wins.
func (s *State) takeClaim(id string, c claim) (held claim, ok bool, err error) {
	path := s.claimPath(id, c.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return claim{}, false, fmt.Errorf("mystery: answers: %w", err)
	}
	b, _ := json.Marshal(c)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".claim-*")
	if err != nil {
		return claim{}, false, fmt.Errorf("mystery: answers: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	if serr := tmp.Sync(); werr == nil {
		werr = serr
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return claim{}, false, fmt.Errorf("mystery: answers: %w", werr)
	}
	if err := os.Link(tmp.Name(), path); err == nil {
		return c, true, nil
	} else if !errors.Is(err, fs.ErrExist) {
		return claim{}, false, fmt.Errorf("mystery: answers: %w", err)
	}
	if err := readJSONBounded(path, &held); err != nil {
		return claim{}, false, err
	}
	return held, false, nil
}

// NewToken returns a fresh secret for a web answer's name.
func NewToken() string {
	b := make([]byte, 16)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// AddAnswer records a; the name is claimed if nobody has; token is the
// secret of a web answer (checked against the claim; "" from the CLI,
// which may always revise). It returns the token a web answer's first
// record was given ("" otherwise).
func (s *State) AddAnswer(id string, a Answer, token string) (newToken string, err error) {
	name, err := CheckName(a.Name)
	if err != nil {
		return "", err
	}
	a.Name = name
	if n, err := s.countAnswers(id); err != nil {
		return "", err
	} else if n >= MaxAnswers {
		return "", ErrFull
	}
	c := claim{Name: name, Via: a.Via}
	fresh := ""
	if a.Via == ViaWeb { // a first web answer gets a token, whatever it sent (a stale one from another mystery)
		fresh = NewToken()
		c.TokenHash = tokenHash(fresh)
	}
	held, ok, err := s.takeClaim(id, c)
	if err != nil {
		return "", err
	}
	if !ok {
		fresh = ""
		if a.Via == ViaWeb && (held.TokenHash == "" || token == "" ||
			subtle.ConstantTimeCompare([]byte(held.TokenHash), []byte(tokenHash(token))) != 1) {
			return "", ErrNameTaken
		}
	}
	now := time.Now().UTC()
	a.At = now.Format(time.RFC3339Nano)
	a.Revision = 0
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return "", err
	}
	rnd := make([]byte, 8)
	rand.Read(rnd) //nolint:errcheck // never fails
	// The name sorts by time, then by chance: the directory's order is the
	// answers' order.
	file := filepath.Join(s.answersDir(id), fmt.Sprintf("%020d-%s.json", now.UnixNano(), hex.EncodeToString(rnd)))
	if err := atomicfile.WriteBytes(file, append(b, '\n')); err != nil {
		return "", fmt.Errorf("mystery: answer: %w", err)
	}
	return fresh, nil
}

// answerFiles lists the answer files of a mystery in order (a temporary
// file a killed writer left starts with a dot and is not one).
func (s *State) answerFiles(id string) ([]string, error) {
	ents, err := os.ReadDir(s.answersDir(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mystery: answers: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			out = append(out, filepath.Join(s.answersDir(id), n))
		}
	}
	slices.Sort(out)
	return out, nil
}

// CountAnswers is how many answers mystery id has kept, revisions
// included.
func (s *State) CountAnswers(id string) (int, error) { return s.countAnswers(id) }

func (s *State) countAnswers(id string) (int, error) {
	fs, err := s.answerFiles(id)
	return len(fs), err
}

// ErrBadAnswer marks answer files that could not be read as answers (a
// file put there by hand); Answers returns the others with it.
var ErrBadAnswer = errors.New("not an answer")

// Answers reads every answer given for a mystery, in the order given,
// each with its revision number under its name. A file that is not an
// answer is left out and named in an error wrapping ErrBadAnswer,
// returned with the answers that were read.
func (s *State) Answers(id string) ([]Answer, error) {
	files, err := s.answerFiles(id)
	if err != nil {
		return nil, err
	}
	if len(files) > MaxAnswers {
		files = files[:MaxAnswers]
	}
	var out []Answer
	var bad []error
	revs := map[string]int{}
	for _, f := range files {
		var a Answer
		if err := readJSONBounded(f, &a); err != nil {
			bad = append(bad, fmt.Errorf("%w: %w", ErrBadAnswer, err))
			continue
		}
		if _, err := CheckName(a.Name); err != nil || len(a.Codes) == 0 {
			bad = append(bad, fmt.Errorf("%w: %s: no valid name or no codes", ErrBadAnswer, f))
			continue
		}
		revs[strings.ToLower(a.Name)]++
		a.Revision = revs[strings.ToLower(a.Name)]
		out = append(out, a)
	}
	return out, errors.Join(bad...)
}

// Latest keeps each name's last answer (the one scored), in the order of
// the names' first answers; Revision says how many that name gave.
func Latest(all []Answer) []Answer {
	var out []Answer
	at := map[string]int{}
	for _, a := range all {
		k := strings.ToLower(a.Name)
		if i, ok := at[k]; ok {
			out[i] = a
			continue
		}
		at[k] = len(out)
		out = append(out, a)
	}
	return out
}

// readJSONBounded reads a small JSON file, refusing one larger than an
// answer can be.
func readJSONBounded(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("mystery: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAnswerBytes+1))
	if err != nil {
		return fmt.Errorf("mystery: %s: %w", path, err)
	}
	if len(b) > maxAnswerBytes {
		return fmt.Errorf("mystery: %s: larger than %d bytes: not an answer", path, maxAnswerBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("mystery: %s: %w", path, err)
	}
	return nil
}
