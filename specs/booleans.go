package specs

// Boolean parameters. Endpoints convention 7 tells clients to send true or
// false ("Boolean parameters take only true or false") and says nothing of
// what a server makes of other words, so the rule of precedence's class 2
// applies (docs/rulebook.md): the rules accept what the platform does. The
// platform declares its booleans with Grape's Boolean type, which Grape
// 2.0.0 coerces through dry-types' Params::Bool
// (lib/grape/validations/types/primitive_coercer.rb); dry-types 1.7.1
// (lib/dry/types/coercions/params.rb, TRUE_VALUES and FALSE_VALUES) reads
// exactly the words below, case-sensitively, and a JSON true, false, 1 or 0
// through their text. Any other word fails the coercion, and Grape answers
// 400 {"error":"<name> is invalid"}. The empty string is no word at all:
// Grape reads it as nil (PrimitiveCoercer#treat_as_nil?), so the parameter
// counts as not given and takes its default.
//
// The reference binds with BoolWord, the suites judge with it, and the
// proxy's judge picks a variant's schema with it, so the three read a
// boolean the same way.

var boolWords = map[string]bool{
	"true": true, "True": true, "TRUE": true, "t": true, "T": true,
	"yes": true, "Yes": true, "YES": true, "y": true, "Y": true,
	"on": true, "On": true, "ON": true, "1": true,
	"false": false, "False": false, "FALSE": false, "f": false, "F": false,
	"no": false, "No": false, "NO": false, "n": false, "N": false,
	"off": false, "Off": false, "OFF": false, "0": false,
}

// BoolWord reads s as the platform reads a boolean parameter: ok is false
// for a word it refuses (400).
func BoolWord(s string) (value, ok bool) {
	value, ok = boolWords[s]
	return value, ok
}
