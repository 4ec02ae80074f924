/**
 * Which language a text is in, well enough to pick a voice: the script decides for most writing systems, and for
 * Latin script the share of a few very common words of each language does. Hand-written rather than a detector
 * library (franc-min is about 115 KB of trigram tables for 80 languages): a voice model speaks a handful of
 * languages, and an answer is long enough for its common words to show. Undefined when it cannot tell.
 */
export type LanguageCode = string;

const SCRIPTS: readonly { language: LanguageCode; pattern: RegExp }[] = [
  // Japanese mixes kana with Han characters, so kana decides before Han does.
  { language: "ja", pattern: /[\u3040-\u30ff]/gu },
  { language: "ko", pattern: /[\uac00-\ud7af\u1100-\u11ff]/gu },
  { language: "zh", pattern: /[\u4e00-\u9fff]/gu },
  { language: "uk", pattern: /[іїєґІЇЄҐ]/gu },
  { language: "ru", pattern: /[\u0400-\u04ff]/gu },
  { language: "el", pattern: /[\u0370-\u03ff]/gu },
  { language: "ar", pattern: /[\u0600-\u06ff]/gu },
  { language: "he", pattern: /[\u0590-\u05ff]/gu },
  { language: "hi", pattern: /[\u0900-\u097f]/gu },
  { language: "th", pattern: /[\u0e00-\u0e7f]/gu },
];

/** Short words that are frequent in one language and rare in the others listed. */
const COMMON_WORDS: Record<LanguageCode, ReadonlySet<string>> = {
  en: words("the and is are you that this with for not have it of to in be was what can will your"),
  es: words("el la los las que es y en un una por para con no se del al lo como más pero está"),
  fr: words("le la les des est et un une que pour pas dans vous sur avec ce qui au du sont mais"),
  de: words("der die das und ist nicht ein eine ich sie mit auf für den dem sich auch es zu wie"),
  it: words("il lo la gli che è e di un una per non con sono del della come ma anche questo"),
  pt: words("o a os as que é e de um uma para não com em do da dos no na mas você está"),
  nl: words("de het een en is niet van dat ik je met op voor zijn maar ook wat er te"),
};

export function detectLanguage(text: string): LanguageCode | undefined {
  const letters = text.replace(/[^\p{L}]/gu, "").length;
  if (letters === 0) return undefined;
  for (const { language, pattern } of SCRIPTS) {
    const count = text.match(pattern)?.length ?? 0;
    // A Russian answer may name a Latin brand; a Latin answer may quote one Greek letter. A tenth decides.
    if (count / letters > 0.1) return language;
  }
  const tokens = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (tokens.length === 0) return undefined;
  let best: { language: LanguageCode; hits: number } | undefined;
  let second = 0;
  for (const [language, common] of Object.entries(COMMON_WORDS)) {
    const hits = tokens.filter((token) => common.has(token)).length;
    if (!best || hits > best.hits) {
      second = best?.hits ?? 0;
      best = { language, hits };
    } else if (hits > second) second = hits;
  }
  // Too few common words, or a near tie (a short mixed text): better not to guess.
  if (!best || best.hits < 2 || best.hits < second * 1.5) return undefined;
  return best.language;
}

const NAMES: Record<LanguageCode, string> = {
  en: "English",
  es: "Spanish",
  fr: "French",
  de: "German",
  it: "Italian",
  pt: "Portuguese",
  nl: "Dutch",
  ja: "Japanese",
  ko: "Korean",
  zh: "Chinese",
  uk: "Ukrainian",
  ru: "Russian",
  el: "Greek",
  ar: "Arabic",
  he: "Hebrew",
  hi: "Hindi",
  th: "Thai",
};

export function languageName(language: LanguageCode): string {
  return NAMES[language] ?? language;
}

function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}
