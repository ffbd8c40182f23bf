package experiment

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// EvalExpr evaluates the arithmetic of an expectation: numbers and
// durations joined by + - * /, e.g. "300ms + 30ms", "2 * 150ms", "0.445".
// Durations come out in milliseconds, the unit of every time metric;
// plain numbers stay as they are. Parentheses are not needed by any
// experiment and are not supported.
func EvalExpr(s string) (float64, error) {
	toks, err := tokenize(s)
	if err != nil {
		return 0, fmt.Errorf("expression %q: %w", s, err)
	}
	if len(toks) == 0 {
		return 0, fmt.Errorf("expression is empty")
	}
	// sum of products, left to right
	sum, i := 0.0, 0
	sign := 1.0
	for {
		prod, n, err := product(toks[i:])
		if err != nil {
			return 0, fmt.Errorf("expression %q: %w", s, err)
		}
		sum += sign * prod
		i += n
		if i == len(toks) {
			return sum, nil
		}
		switch toks[i] {
		case "+":
			sign = 1
		case "-":
			sign = -1
		default:
			return 0, fmt.Errorf("expression %q: unexpected %q", s, toks[i])
		}
		i++
		if i == len(toks) {
			return 0, fmt.Errorf("expression %q: ends with an operator", s)
		}
	}
}

func product(toks []string) (float64, int, error) {
	v, err := value(toks[0])
	if err != nil {
		return 0, 0, err
	}
	i := 1
	for i+1 < len(toks) && (toks[i] == "*" || toks[i] == "/") {
		w, err := value(toks[i+1])
		if err != nil {
			return 0, 0, err
		}
		if toks[i] == "*" {
			v *= w
		} else {
			if w == 0 {
				return 0, 0, fmt.Errorf("division by zero")
			}
			v /= w
		}
		i += 2
	}
	return v, i, nil
}

func value(tok string) (float64, error) {
	if strings.ContainsAny(tok, "+-*/") && len(tok) == 1 {
		return 0, fmt.Errorf("operator %q where a value was expected", tok)
	}
	if f, err := strconv.ParseFloat(tok, 64); err == nil {
		return f, nil
	}
	if d, err := time.ParseDuration(tok); err == nil {
		return float64(d) / float64(time.Millisecond), nil
	}
	if strings.HasPrefix(tok, "${") {
		return 0, fmt.Errorf("%s is not defined in vars", tok)
	}
	return 0, fmt.Errorf("%q is neither a number nor a duration (450ms, 1.5s)", tok)
}

// tokenize splits on operators; a '-' right after another operator or at
// the start is the sign of a number, not a subtraction.
func tokenize(s string) ([]string, error) {
	var toks []string
	cur := strings.Builder{}
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			toks = append(toks, t)
		}
		cur.Reset()
	}
	for i, r := range s {
		switch r {
		case '+', '*', '/', '-':
			prevIsOp := len(toks) == 0 || isOp(toks[len(toks)-1])
			if r == '-' && strings.TrimSpace(cur.String()) == "" && prevIsOp {
				cur.WriteRune(r)
				continue
			}
			// "1e-3" keeps its sign
			if (r == '-' || r == '+') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E') && strings.TrimSpace(cur.String()) != "" {
				cur.WriteRune(r)
				continue
			}
			flush()
			toks = append(toks, string(r))
		case '(', ')':
			return nil, fmt.Errorf("parentheses are not supported")
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks, nil
}

func isOp(t string) bool { return t == "+" || t == "-" || t == "*" || t == "/" }
