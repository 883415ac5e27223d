/**
 * The sentences the agent says without the model: silence prompt and goodbyes, the short filler
 * while a slow model thinks, the apology when a provider fails, and the closing the model is told
 * to say. Spoken in the call's language (the languages the templates ship in, plus Spanish);
 * an agent overrides any of them in `workflow_configurations.phrases`. Pure.
 */

export interface Phrases {
  silencePrompt: string;
  silenceGoodbye: string;
  /** A chat left idle (`chat_idle_timeout_seconds`). */
  idleGoodbye: string;
  timeLimitGoodbye: string;
  oneMoment: string;
  apology: string;
  /** Before a transfer to a person. */
  transferring: string;
  /** The transfer's destination did not take the call (busy, no answer, a machine). */
  transferFailed: string;
  closing: string;
}

export const PHRASES: Record<string, Phrases> = {
  en: {
    silencePrompt: 'Are you still there?',
    silenceGoodbye: "I can't hear you, so I will end the call now. Goodbye.",
    idleGoodbye: "As there have been no new messages for a while, I'm closing this chat now. Goodbye.",
    timeLimitGoodbye: 'We have reached the time limit for this call. Thank you, goodbye.',
    oneMoment: 'One moment, please.',
    apology: "I'm sorry, I'm having a technical problem and have to end the call. Please try again later. Goodbye.",
    transferring: 'Please hold while I transfer your call.',
    transferFailed: "I'm sorry, nobody could take your call right now. Please try again later. Goodbye.",
    closing: 'Thank you for your time. Goodbye.',
  },
  pl: {
    silencePrompt: 'Czy nadal mnie słychać?',
    silenceGoodbye: 'Nie słyszę odpowiedzi, więc kończę rozmowę. Do widzenia.',
    idleGoodbye: 'Ponieważ od dłuższego czasu nie ma nowych wiadomości, kończę teraz ten czat. Do widzenia.',
    timeLimitGoodbye: 'Osiągnęliśmy limit czasu tej rozmowy. Dziękuję, do widzenia.',
    oneMoment: 'Chwileczkę.',
    apology: 'Przepraszam, mam problem techniczny i muszę zakończyć rozmowę. Proszę spróbować później. Do widzenia.',
    transferring: 'Proszę chwilę poczekać, przełączam rozmowę.',
    transferFailed: 'Przepraszam, nikt nie może teraz odebrać. Proszę zadzwonić później. Do widzenia.',
    closing: 'Dziękuję za rozmowę. Do widzenia.',
  },
  de: {
    silencePrompt: 'Sind Sie noch da?',
    silenceGoodbye: 'Ich kann Sie nicht hören und beende das Gespräch jetzt. Auf Wiederhören.',
    idleGoodbye: 'Da schon länger keine neue Nachricht gekommen ist, beende ich diesen Chat jetzt. Auf Wiedersehen.',
    timeLimitGoodbye: 'Wir haben die Zeitgrenze für dieses Gespräch erreicht. Vielen Dank, auf Wiederhören.',
    oneMoment: 'Einen Moment, bitte.',
    apology:
      'Entschuldigung, ich habe ein technisches Problem und muss das Gespräch beenden. Bitte versuchen Sie es später noch einmal. Auf Wiederhören.',
    transferring: 'Bitte bleiben Sie dran, ich verbinde Sie.',
    transferFailed:
      'Es tut mir leid, gerade kann niemand Ihren Anruf annehmen. Bitte versuchen Sie es später noch einmal. Auf Wiederhören.',
    closing: 'Vielen Dank für Ihre Zeit. Auf Wiederhören.',
  },
  fr: {
    silencePrompt: 'Êtes-vous toujours là ?',
    silenceGoodbye: "Je ne vous entends pas, je vais donc mettre fin à l'appel. Au revoir.",
    idleGoodbye: "Comme il n'y a pas eu de nouveau message depuis un moment, je ferme cette discussion. Au revoir.",
    timeLimitGoodbye: 'Nous avons atteint la durée maximale de cet appel. Merci, au revoir.',
    oneMoment: 'Un instant, s’il vous plaît.',
    apology:
      "Je suis désolé, j'ai un problème technique et je dois mettre fin à l'appel. Veuillez réessayer plus tard. Au revoir.",
    transferring: 'Veuillez patienter, je transfère votre appel.',
    transferFailed:
      'Je suis désolé, personne ne peut prendre votre appel pour le moment. Veuillez rappeler plus tard. Au revoir.',
    closing: 'Merci pour votre temps. Au revoir.',
  },
  it: {
    silencePrompt: 'È ancora in linea?',
    silenceGoodbye: 'Non la sento, quindi chiudo la chiamata. Arrivederci.',
    idleGoodbye: 'Poiché da un po’ non arrivano nuovi messaggi, chiudo ora questa chat. Arrivederci.',
    timeLimitGoodbye: 'Abbiamo raggiunto il limite di tempo di questa chiamata. Grazie, arrivederci.',
    oneMoment: 'Un momento, per favore.',
    apology:
      'Mi dispiace, ho un problema tecnico e devo chiudere la chiamata. La prego di riprovare più tardi. Arrivederci.',
    transferring: 'Resti in linea, trasferisco la chiamata.',
    transferFailed: 'Mi dispiace, al momento nessuno può rispondere. La prego di richiamare più tardi. Arrivederci.',
    closing: 'Grazie per il suo tempo. Arrivederci.',
  },
  es: {
    silencePrompt: '¿Sigue ahí?',
    silenceGoodbye: 'No le oigo, así que voy a terminar la llamada. Adiós.',
    idleGoodbye: 'Como hace un rato que no hay mensajes nuevos, cierro este chat ahora. Adiós.',
    timeLimitGoodbye: 'Hemos llegado al límite de tiempo de esta llamada. Gracias, adiós.',
    oneMoment: 'Un momento, por favor.',
    apology:
      'Lo siento, tengo un problema técnico y tengo que terminar la llamada. Por favor, inténtelo más tarde. Adiós.',
    transferring: 'Espere un momento, le paso la llamada.',
    transferFailed: 'Lo siento, ahora nadie puede atender su llamada. Por favor, inténtelo más tarde. Adiós.',
    closing: 'Gracias por su tiempo. Adiós.',
  },
};

/** The overridable phrases, as `workflow_configurations.phrases` names them. */
export const PHRASE_KEYS = {
  silence_prompt: 'silencePrompt',
  silence_goodbye: 'silenceGoodbye',
  idle_goodbye: 'idleGoodbye',
  time_limit_goodbye: 'timeLimitGoodbye',
  one_moment: 'oneMoment',
  apology: 'apology',
  transferring: 'transferring',
  transfer_failed: 'transferFailed',
} as const satisfies Record<string, keyof Phrases>;

/** The phrases for a BCP 47 language (`pl-PL` is Polish; an unlisted language gets English), with overrides. */
export function phrasesFor(
  language: string,
  overrides: Partial<Record<keyof typeof PHRASE_KEYS, string>> = {},
): Phrases {
  const phrases = { ...(PHRASES[language.toLowerCase().split('-')[0]!] ?? PHRASES.en!) };
  for (const [key, field] of Object.entries(PHRASE_KEYS)) {
    const override = overrides[key as keyof typeof PHRASE_KEYS]?.trim();
    if (override) phrases[field] = override;
  }
  return phrases;
}
