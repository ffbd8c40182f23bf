package load

// SegmentAt is the index-th (from 0) execution segment of a sequence, in
// k6's form ("1/4:1/2"), the sequence filled with 0 and 1 as k6 fills it.
// It lets a process that knows only its place in the split, such as a
// Kubernetes Indexed Job's pod from JOB_COMPLETION_INDEX, run its share.
func SegmentAt(sequence string, index int) (string, error) {
	const field = "executionSegmentIndex"
	bounds, err := parseSequence(sequence)
	if err != nil {
		return "", err
	}
	if bounds == nil {
		return "", configErr(field, "needs executionSegmentSequence (e.g. 0,1/4,2/4,3/4,1): the index is a place in it")
	}
	bounds = fillSequence(bounds)
	if index < 0 || index >= len(bounds)-1 {
		return "", configErr(field, "%d: the sequence has segments 0..%d", index, len(bounds)-2)
	}
	return segmentBounds{bounds[index], bounds[index+1]}.String(), nil
}
