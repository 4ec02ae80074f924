import { describe, expect, it } from "vitest";
import { detectLanguage, languageName } from "../../../src/media/speech-language.ts";

describe("detectLanguage", () => {
  it.each([
    ["This is the answer, and it is what you asked for.", "en"],
    ["Esta es la respuesta que me pediste, y no es para los demás.", "es"],
    ["Voici la réponse que vous avez demandée, et ce n'est pas pour les autres.", "fr"],
    ["Das ist die Antwort, und sie ist nicht für den Rest der Welt.", "de"],
    ["Это ответ на ваш вопрос, с парой слов про API.", "ru"],
    ["Це відповідь на ваше запитання, і вона їй підходить.", "uk"],
    ["これはあなたの質問への答えです。", "ja"],
    ["这是你问题的答案。", "zh"],
    ["이것은 당신의 질문에 대한 답입니다.", "ko"],
  ])("%s → %s", (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it("does not guess from too little", () => {
    expect(detectLanguage("OK")).toBeUndefined();
    expect(detectLanguage("12345 !!")).toBeUndefined();
  });

  it("names languages for the chat", () => {
    expect(languageName("de")).toBe("German");
    expect(languageName("xx")).toBe("xx");
  });
});
