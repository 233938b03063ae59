// Abaqus/CalculiX input decks as cases: `fem run model.inp` runs the analysis the deck describes.
//
// The deck is translated into the YAML case fem would run for it (docs/case-reference.md,
// "Abaqus and CalculiX decks"), which then goes through the same checks as a case file: one
// validation, one set of messages, and `--set` overrides apply to decks too. The translation
// refers to the deck itself as its mesh (*NODE, *ELEMENT, *NSET, *ELSET are read by the mesh
// reader), maps model data (*MATERIAL, *SOLID SECTION, *AMPLITUDE, *INITIAL CONDITIONS,
// *BOUNDARY) and one *STEP (*STATIC, *DYNAMIC, *DYNAMIC EXPLICIT, loads, output requests), and
// refuses every keyword, parameter and option outside that subset at its file:line, before any
// work. Errors the case checks find in the translation are reported at the deck line the
// translated key comes from.
#pragma once

#include <string>
#include <vector>

#include "fem/case.hpp"

namespace fem {

/// Whether fem reads this case file as an Abaqus/CalculiX deck (extension .inp, any case).
bool is_abaqus_deck(const std::string& path);

struct DeckTranslation {
  /// The case as YAML, commented with the deck lines each part comes from.
  std::string yaml;
  /// Per line of `yaml` (index 0 is line 1), the deck line it was translated from (line 0: none).
  std::vector<SourceLocation> origin;
  /// How the deck was read where a user could expect otherwise (defaults, what an output
  /// request becomes); `fem run` and `fem check` log them.
  std::vector<std::string> notes;
};

/// Translates the deck. Throws InputError at the deck line of anything outside the supported
/// subset, with the list of what is supported. The case names the deck as its mesh file by
/// `mesh_file` (default: the deck's file name, for a case beside the deck).
DeckTranslation translate_abaqus_deck(const std::string& path, const std::string& mesh_file = {});

/// The case of a deck: translate_abaqus_deck() and parse_case(), with every error placed at the
/// deck line it comes from. load_case() calls this for .inp files.
CaseSpec load_abaqus_deck(const std::string& path, const std::vector<CaseOverride>& overrides = {});

}  // namespace fem
