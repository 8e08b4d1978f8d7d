"""Sentences, language detection and chunk metadata in the nine languages beyond English."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

from vera_lab import language as language_module
from vera_lab.chunking import make_chunker, sentence_spans
from vera_lab.data import DatasetError, load_dataset
from vera_lab.data.dataset import with_corpus_language
from vera_lab.language import LANGUAGES, TRIGRAM_TABLE, detect_language
from vera_lab.types import Corpus, Document

TINY = Path(__file__).parent / "data" / "tiny"

# Each case: the text and its sentences, hard for English rules.
CASES = {
    "de": ("Am 3. Oktober 1990 kam die Einheit. Er wohnt in der Goethestr. 5 bzw. im 2. Stock. Das war's.",
           ["Am 3. Oktober 1990 kam die Einheit.", "Er wohnt in der Goethestr. 5 bzw. im 2. Stock.",
            "Das war's."]),
    "fr": ("Mme. Dupont est arrivée à 9 h. Elle est partie avec M. Martin. Le 1er mai, tout est fermé.",
           ["Mme. Dupont est arrivée à 9 h.", "Elle est partie avec M. Martin.",
            "Le 1er mai, tout est fermé."]),
    "es": ("¿Vienes mañana? La Sra. García vive en la Avda. de Mayo. ¡Qué bien! Llegó al.",
           ["¿Vienes mañana?", "La Sra. García vive en la Avda. de Mayo.", "¡Qué bien!", "Llegó al."]),
    "it": ("Visse nel V secolo a.C. La Grecia era divisa. Il dott. Rossi e il prof. Bianchi arrivano.",
           ["Visse nel V secolo a.C.", "La Grecia era divisa.", "Il dott. Rossi e il prof. Bianchi arrivano."]),
    "pt": ("O Sr. Silva mora na Av. Paulista, n.º 900. Ligue para o tel. 253-1588. Ele chegou.",
           ["O Sr. Silva mora na Av. Paulista, n.º 900.", "Ligue para o tel. 253-1588.", "Ele chegou."]),
    "nl": ("Dhr. Jansen stond vroeg op. Het werk ligt bijv. stil. Mevr. de Vries belt morgen.",
           ["Dhr. Jansen stond vroeg op.", "Het werk ligt bijv. stil.", "Mevr. de Vries belt morgen."]),
    "ru": ("А. С. Пушкин родился в 1799 г. В Москве он жил на ул. Немецкой. Это т. е. важно.",
           ["А. С. Пушкин родился в 1799 г.", "В Москве он жил на ул. Немецкой.", "Это т. е. важно."]),
    "zh": ("他说：“今天天气很好。”我们出去吧！好的？没问题。",
           ["他说：“今天天气很好。”", "我们出去吧！", "好的？", "没问题。"]),
    "ja": ("今日は晴れです。「行きましょう!」と言った。本当?はい、そうです。",
           ["今日は晴れです。", "「行きましょう!」と言った。", "本当?", "はい、そうです。"]),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(CASES))
def test_hard_cases_split_with_exact_offsets(language):
    text, sentences = CASES[language]
    spans = sentence_spans(text, language)
    assert [text[a:b] for a, b in spans] == sentences
    assert sentence_spans(text) == spans  # the language is detected from the text as well


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("nl", "Ze mogen leven zoals ze willen. '' Het publiek juichte. ” Daarna",
         ["Ze mogen leven zoals ze willen. ''", "Het publiek juichte. ”", "Daarna"]),
        ("de", "Danke Rosemarie! :-) Dann habe ich bezahlt. Alles gut. ;) Wir kommen wieder.",
         ["Danke Rosemarie! :-)", "Dann habe ich bezahlt.", "Alles gut. ;)", "Wir kommen wieder."]),
        ("es", 'Llegó a la final. " Golpea a la bola con fuerza " .',
         ["Llegó a la final.", '" Golpea a la bola con fuerza " .']),  # a straight quote apart may open
        ("en", "He left. '' She stayed.", ["He left. ''", "She stayed."]),
        ("fr", 'Au reste du monde. " "C\'est la panique", dit-il.',
         ['Au reste du monde. "', '"C\'est la panique", dit-il.']),  # a straight quote before another closes
    ],
)  # fmt: skip
def test_a_closing_quote_or_smiley_standing_apart_stays_with_its_sentence(language, text, sentences):
    spans = sentence_spans(text, language)
    assert [text[a:b] for a, b in spans] == sentences
    assert all(text[b:c].isspace() for (_, b), (c, _) in zip(spans, spans[1:], strict=False))


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("de", "Sie sagte: „Ich komme.“ Dann ging sie. „Gut.“ sagte er.",
         ["Sie sagte: „Ich komme.“", "Dann ging sie.", "„Gut.“ sagte er."]),  # “ closes a German quote
        ("en", "He said. “Go home.” She went.", ["He said.", "“Go home.”", "She went."]),  # and opens here
        ("fr", "Il a dit : « Je viens. » Puis il est parti.", ["Il a dit : « Je viens. »", "Puis il est parti."]),
        ("de", "Er sagte. »Ich komme.« Dann ging er.", ["Er sagte.", "»Ich komme.«", "Dann ging er."]),
        ("de", "Äpfel, Birnen usw. Wir kaufen alle. Äpfel usw. sind gesund.",
         ["Äpfel, Birnen usw.", "Wir kaufen alle.", "Äpfel usw. sind gesund."]),  # a soft word may end one
        ("ru", "Яблоки, груши и т.д. Потом мы ушли.", ["Яблоки, груши и т.д.", "Потом мы ушли."]),
        ("nl", "Op 3 okt. 2019 opende de winkel. Het was in okt. De rest volgde.",
         ["Op 3 okt. 2019 opende de winkel.", "Het was in okt.", "De rest volgde."]),
        ("fr", "Voir p. 12 et suiv. pour les détails. Le 15 janv. 2020 tout a changé.",
         ["Voir p. 12 et suiv. pour les détails.", "Le 15 janv. 2020 tout a changé."]),
        ("es", "Vivimos junto al mar. Luego nos mudamos.", ["Vivimos junto al mar.", "Luego nos mudamos."]),
        ("ja", "彼は「明日行きます。」と言った。「こんにちは。」彼女は笑った。",
         ["彼は「明日行きます。」と言った。", "「こんにちは。」", "彼女は笑った。"]),
    ],
)  # fmt: skip
def test_quotes_soft_abbreviations_months_and_quotations_follow_each_language(language, text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("de", "Siehe S. 5 und Nr. 7. Danach folgt Kap. 3.", ["Siehe S. 5 und Nr. 7.", "Danach folgt Kap. 3."]),
        ("de", "Er stand auf S. 12. Dort war nichts. Am 3. Oktober kam er.",
         ["Er stand auf S. 12.", "Dort war nichts.", "Am 3. Oktober kam er."]),  # a count, then an ordinal
        ("de", "Dr. med. Weber kam. Dr. rer. nat. Klein auch.", ["Dr. med. Weber kam.", "Dr. rer. nat. Klein auch."]),
        ("fr", "Voir p. ex. le chap. 3. C'est clair.", ["Voir p. ex. le chap. 3.", "C'est clair."]),
        ("es", "Viajó a EE. UU. en 2010. Vive en EE. UU. Luego volvió.",
         ["Viajó a EE. UU. en 2010.", "Vive en EE. UU.", "Luego volvió."]),  # "UU." may end one
        ("pt", "V. Exa. está convidado. Obrigado.", ["V. Exa. está convidado.", "Obrigado."]),
        ("it", "Lo dice l'art. 3 della legge. Vedi ad es. il cap. 2. Dell’avv. Rossi si parla.",
         ["Lo dice l'art. 3 della legge.", "Vedi ad es. il cap. 2.", "Dell’avv. Rossi si parla."]),  # elided
        ("es", "Pagó 3.500 ptas. por el libro. Según el art. 14 de la ley. Era caro.",
         ["Pagó 3.500 ptas. por el libro.", "Según el art. 14 de la ley.", "Era caro."]),
        ("de", "Das war im 19. Jh. Danach zahlte die GmbH & Co. KG alles.",
         ["Das war im 19. Jh.", "Danach zahlte die GmbH & Co. KG alles."]),  # "Jh." may end one, "Co." not
        ("fr", "Il habite au 5 bd. Haussmann. Elle est arrivée à 9 h. Elle est partie.",
         ["Il habite au 5 bd. Haussmann.", "Elle est arrivée à 9 h.", "Elle est partie."]),  # one letter ends
        ("de", "Er war ca. 2 Std. unterwegs. Das Treffen ist am Mo. 5. Mai. Das ist so. Dann gehen wir.",
         ["Er war ca. 2 Std. unterwegs.", "Das Treffen ist am Mo. 5. Mai.", "Das ist so.", "Dann gehen wir."]),
        ("fr", "Ce n'est pas cher : 5 € env. C'est bien. Il y a env. 5 000 habitants. Tél. : 01 23 45 67 89.",
         ["Ce n'est pas cher : 5 € env.", "C'est bien.", "Il y a env. 5 000 habitants.", "Tél. : 01 23 45 67 89."]),
        ("es", "Pesa 5 kg. aprox. Es ligero. Mide aprox. 5 km. Luego gira.",
         ["Pesa 5 kg. aprox.", "Es ligero.", "Mide aprox. 5 km.", "Luego gira."]),  # units and aprox. may end one
        ("it", "Costa circa 5 mln. di euro. È caro.", ["Costa circa 5 mln. di euro.", "È caro."]),
        ("pt", "O Eng. Souza chegou. Custa aprox. 5 reais. É barato.",
         ["O Eng. Souza chegou.", "Custa aprox. 5 reais.", "É barato."]),
        ("nl", "Het is 5 min. lopen. Dan ben je er.", ["Het is 5 min. lopen.", "Dan ben je er."]),
        ("nl", "Het was in 50 v.Chr. Daarna kwam Rome. Het kost ong. 5 euro op wo. 5 mei in de Kalverstr. 12. Klaar.",
         ["Het was in 50 v.Chr.", "Daarna kwam Rome.", "Het kost ong. 5 euro op wo. 5 mei in de Kalverstr. 12.",
          "Klaar."]),
        ("pt", "Ele nasceu no séc. XIX. Morreu jovem.", ["Ele nasceu no séc. XIX.", "Morreu jovem."]),
        ("pt", "Vendeu à Silva Ltda. A Silva Ltda. vende carros.",
         ["Vendeu à Silva Ltda.", "A Silva Ltda. vende carros."]),  # a company's "Ltda." may end one
        ("nl", "Zie art. 3 en hfdst. 2 van de wet. Dat is duidelijk.",
         ["Zie art. 3 en hfdst. 2 van de wet.", "Dat is duidelijk."]),
        ("de", "Das Meiste ist ab 3. Unsere Kinder mochten es. Am 3. Oktober war Ruhe.",
         ["Das Meiste ist ab 3.", "Unsere Kinder mochten es.", "Am 3. Oktober war Ruhe."]),  # no article after
        ("de", "Familie Haury, Doninikus-Zimmermann-Str. 9, Leutkirch. Tel. und Fax folgen.",
         ["Familie Haury, Doninikus-Zimmermann-Str. 9, Leutkirch.", "Tel. und Fax folgen."]),  # a long "-Str."
        ("de", "Ludwig XIV. regierte lange. Wilhelm II. dankte ab. Das war im Band IV. Der Rest fehlt.",
         ["Ludwig XIV. regierte lange.", "Wilhelm II. dankte ab.", "Das war im Band IV.", "Der Rest fehlt."]),
        ("de", "Wir feiern am 24.12. um 18 Uhr. Wir treffen uns um 10.30. Dann essen wir.",
         ["Wir feiern am 24.12. um 18 Uhr.", "Wir treffen uns um 10.30.", "Dann essen wir."]),  # a time ends one
        ("de", "Preis inkl. MwSt. und Versand. Fertig.", ["Preis inkl. MwSt. und Versand.", "Fertig."]),
        ("de", "Die Hotline kostet 1,24 Euro / Min. Und sie ist langsam. Sie kostet min. 5 Euro.",
         ["Die Hotline kostet 1,24 Euro / Min.", "Und sie ist langsam.", "Sie kostet min. 5 Euro."]),  # may end one
        ("nl", "Het gebeurde op 3 jan. jl. Niemand weet waarom.", ["Het gebeurde op 3 jan. jl.", "Niemand weet waarom."]),
        ("fr", "Rome fut fondée en 753 av. J.-C. Elle devint un empire. J.-P. Sartre écrivait.",
         ["Rome fut fondée en 753 av. J.-C.", "Elle devint un empire.", "J.-P. Sartre écrivait."]),
        ("fr", "Au IVe siècle av. J.-C. Alexandre conquit l'Asie.", ["Au IVe siècle av. J.-C. Alexandre conquit l'Asie."]),
        ("en", "Hedge our non-u.s. dollar exposures (I.-S. Park and R.P. Hausinger). Done.",
         ["Hedge our non-u.s. dollar exposures (I.-S. Park and R.P. Hausinger).", "Done."]),  # hyphenated initials
        ("de", "Wir fahren ab Hbf. um 8 Uhr. Wir treffen uns am Hbf. Dann geht es los. Die Fa. Müller liefert.",
         ["Wir fahren ab Hbf. um 8 Uhr.", "Wir treffen uns am Hbf.", "Dann geht es los.", "Die Fa. Müller liefert."]),
        ("es", "Son las 3 p. m. Vamos. Abre a las 9 a. m. EST hoy.",
         ["Son las 3 p. m.", "Vamos.", "Abre a las 9 a. m. EST hoy."]),  # a spaced "p. m." ends as "p.m." does
        ("it", "Egr. Sig. Rossi, la informiamo. Gent. Sig.ra Neri, grazie.",
         ["Egr. Sig. Rossi, la informiamo.", "Gent. Sig.ra Neri, grazie."]),
        ("nl", "Dit geldt m.i.v. 1 mei. Er zijn nl. drie opties.", ["Dit geldt m.i.v. 1 mei.", "Er zijn nl. drie opties."]),
        ("en", "It was given (100 mg/kg, i.p.) 24 h before. Done.", ["It was given (100 mg/kg, i.p.) 24 h before.", "Done."]),
        ("ru", "Это было в 1990-х гг. Многое изменилось. Цена 5 тыс. руб. Это дорого. Это 5 тыс. человек.",
         ["Это было в 1990-х гг.", "Многое изменилось.", "Цена 5 тыс. руб.", "Это дорого.", "Это 5 тыс. человек."]),
        ("de", "Lies Abschn. 4 und Ziff. 2. Dann verstehst du es.", ["Lies Abschn. 4 und Ziff. 2.", "Dann verstehst du es."]),
        ("fr", "C'était au XXe s. Tout a changé. N.B. Le délai est court. P.-S. Je reviens.",
         ["C'était au XXe s.", "Tout a changé.", "N.B. Le délai est court.", "P.-S. Je reviens."]),
        ("it", "Era il sec. XV. Tutto cambiò.", ["Era il sec. XV.", "Tutto cambiò."]),  # a Roman number goes on
        ("nl", "Zie fig. 3 en tab. 2. Daar staat het.", ["Zie fig. 3 en tab. 2.", "Daar staat het."]),
        ("ru", "Он живёт на ул. им. Ленина. Это было в I в. до н. э. Потом пришли римляне.",
         ["Он живёт на ул. им. Ленина.", "Это было в I в. до н. э.", "Потом пришли римляне."]),
        ("fr", "Il parle des homo's. Ensuite il part.", ["Il parle des homo's.", "Ensuite il part."]),  # no elision
        ("de", "Sie wohnt in der Hauptstr. 5. Geschäftsführer ist er. Er wohnt im Goetheweg 12. Gäste kommen.",
         ["Sie wohnt in der Hauptstr. 5.", "Geschäftsführer ist er.", "Er wohnt im Goetheweg 12.", "Gäste kommen."]),
        ("de", "Geöffnet ist Mo.–Fr. von 9 bis 18 Uhr. Es kostet rd. 400.000 €. Fertig.",
         ["Geöffnet ist Mo.–Fr. von 9 bis 18 Uhr.", "Es kostet rd. 400.000 €.", "Fertig."]),
        ("en", "WHEREAS, Mr./Mrs. Smith is appointed. Done.", ["WHEREAS, Mr./Mrs. Smith is appointed.", "Done."]),
        ("de", "Wir waren vom 3.–5. Mai dort. Es war schön.", ["Wir waren vom 3.–5. Mai dort.", "Es war schön."]),
        ("fr", "Ex. : une pomme. Autre ex. : une poire.", ["Ex. : une pomme.", "Autre ex. : une poire."]),
        ("en", "Material, tools, etc . , had to be bought . Then it began.",
         ["Material, tools, etc . , had to be bought .", "Then it began."]),  # no sentence opens with a comma
        ("nl", ",,Door te vasten helpen we.'' ,,Het is goed.''", [",,Door te vasten helpen we.''", ",,Het is goed.''"]),
        ("pt", "O art. 5.º, inc. II, diz isso. Leia.", ["O art. 5.º, inc. II, diz isso.", "Leia."]),
        ("nl", "Hij kwam om 8.30 u. Zij later. Dank u. Graag gedaan.",
         ["Hij kwam om 8.30 u.", "Zij later.", "Dank u.", "Graag gedaan."]),
        ("ru", "В 1812 г. Наполеон вошёл в Москву. Он бежал в 1812 г. Город горел.",
         ["В 1812 г. Наполеон вошёл в Москву.", "Он бежал в 1812 г.", "Город горел."]),  # a time opening one
        ("ru", "Проф. А. И. Петров и доц. Б. В. Сидоров выступили. Встреча в 15:00 (по моск. вр.). Всё.",
         ["Проф. А. И. Петров и доц. Б. В. Сидоров выступили.", "Встреча в 15:00 (по моск. вр.).", "Всё."]),
        ("es", "Es la Vda. de Pérez. Muy amable.", ["Es la Vda. de Pérez.", "Muy amable."]),
        ("de", "Der Zug fährt ab Gl. 3. Bitte einsteigen.", ["Der Zug fährt ab Gl. 3.", "Bitte einsteigen."]),
        ("ru", "Автор — Пушкин А. С. Он поэт. А. С. Пушкин родился в Москве.",
         ["Автор — Пушкин А. С.", "Он поэт.", "А. С. Пушкин родился в Москве."]),  # initials after a surname
        ("en", "RECITALS\nA. The Parties agree.", ["RECITALS", "A. The Parties agree."]),  # a heading's letter goes on
        ("de", "Er heißt Hans-Peter M. Er kommt aus Köln.", ["Er heißt Hans-Peter M.", "Er kommt aus Köln."]),
        ("en", "See the provisions of Exhibit C. The parties agree. Did you see Albert I. Jones? Yes.",
         ["See the provisions of Exhibit C.", "The parties agree.", "Did you see Albert I. Jones?", "Yes."]),
        ("it", "Vedi il cap. 4, par. 2. Ci vediamo dom. 5 maggio. Tel. 06 1234567. Chiamaci.",
         ["Vedi il cap. 4, par. 2.", "Ci vediamo dom. 5 maggio.", "Tel. 06 1234567.", "Chiamaci."]),
        ("de", "Die Sonderausg. erschien 2020. Sie war vergriffen.", ["Die Sonderausg. erschien 2020.", "Sie war vergriffen."]),
        ("it", "Lo ha detto il Presidente della Rep. Tutti applaudono. Era il 3 sett. 2001. Basta.",
         ["Lo ha detto il Presidente della Rep.", "Tutti applaudono.", "Era il 3 sett. 2001.", "Basta."]),
        ("ru", "Цена указана в у. е. Это доллары. См. прил. 2. Он живёт в пос. Лесной. Фильм снял Э. Рязанов.",
         ["Цена указана в у. е.", "Это доллары.", "См. прил. 2.", "Он живёт в пос. Лесной.",
          "Фильм снял Э. Рязанов."]),  # a lowercase "е." may end one, a capital "Э." is an initial
        ("es", "La cita es el Vie. 3 de mayo. Gracias.", ["La cita es el Vie. 3 de mayo.", "Gracias."]),
        ("it", "Egregio Dir. Amm., la ringrazio.", ["Egregio Dir. Amm., la ringrazio."]),
        ("ru", "Едем в сторону пгт. Брагиновка. Там тихо.", ["Едем в сторону пгт. Брагиновка.", "Там тихо."]),
        ("es", "Lean el párr. 5 del texto. Luego sigan.", ["Lean el párr. 5 del texto.", "Luego sigan."]),
        ("de", "Funde aus dem 2. -4. Jahrhundert zeigen das. Mehr nicht.",
         ["Funde aus dem 2. -4. Jahrhundert zeigen das.", "Mehr nicht."]),
        ("de", "Prof. Dr. Schmidt u. Dipl.-Ing. Weber sind da. Sie reden.",
         ["Prof. Dr. Schmidt u. Dipl.-Ing. Weber sind da.", "Sie reden."]),  # a title joined by a hyphen
        ("it", "Vedi artt. 3 ss. del codice. Mons. Rossi lo sa.", ["Vedi artt. 3 ss. del codice.", "Mons. Rossi lo sa."]),
        # letters, addresses and offices (round 23 of hand cases: 22 of 36 at first reading)
        ("de", "Univ.-Prof. Dr. Huber spricht. Siehe lfd. Nr. 5. Gez. Müller.",
         ["Univ.-Prof. Dr. Huber spricht.", "Siehe lfd. Nr. 5.", "Gez. Müller."]),
        ("fr", "Voir le suppl. au n° 12. Les Ets. Martin ferment.", ["Voir le suppl. au n° 12.", "Les Ets. Martin ferment."]),
        ("es", "El Lcdo. Ruiz firmó. Llame al Tfno. 91 123 45 67.", ["El Lcdo. Ruiz firmó.", "Llame al Tfno. 91 123 45 67."]),
        ("it", "Vedi All. 2 alla lettera. Grazie.", ["Vedi All. 2 alla lettera.", "Grazie."]),
        ("pt", "O Pe. João e o Cel. Souza vieram pela Av. Brig. Faria Lima. Chegaram.",
         ["O Pe. João e o Cel. Souza vieram pela Av. Brig. Faria Lima.", "Chegaram."]),
        ("nl", "Burg. Jansen opende. Bel tel. 020-1234567. Groet, i.o. P. de Vries.",
         ["Burg. Jansen opende.", "Bel tel. 020-1234567.", "Groet, i.o. P. de Vries."]),
        # references and dates (round 24 of hand cases: 27 of 36 at first reading)
        ("es", "Véase García et al. (2018), pp. 20-25. Los datos coinciden.",
         ["Véase García et al. (2018), pp. 20-25.", "Los datos coinciden."]),  # "al" is a Spanish word
        ("de", "Vgl. Müller (2019), S. 12 f. Die Daten zeigen das.", ["Vgl. Müller (2019), S. 12 f.", "Die Daten zeigen das."]),
        ("fr", "Trad. de l'anglais par M. Petit. Paru en 2001.", ["Trad. de l'anglais par M. Petit.", "Paru en 2001."]),
        ("it", "Il termine scade il 15 genn. 2025. Poi basta.", ["Il termine scade il 15 genn. 2025.", "Poi basta."]),
        ("nl", "Red. J. Bakker, dl. 2, Amsterdam 2011. Uitverkocht.", ["Red. J. Bakker, dl. 2, Amsterdam 2011.", "Uitverkocht."]),
        ("ru", "Под ред. А. Петрова. Срок истекает 15 янв. 2025 г. Потом поздно.",
         ["Под ред. А. Петрова.", "Срок истекает 15 янв. 2025 г.", "Потом поздно."]),
        # ranks, offices and weekdays (round 25 of hand cases: 30 of 36 at first reading)
        ("de", "Abg. Meier (CDU) widersprach. Die SPD stimmte zu.", ["Abg. Meier (CDU) widersprach.", "Die SPD stimmte zu."]),
        ("fr", "Le gén. de Gaulle arriva. Retour mer. prochain. Je vois la mer. Puis le ciel.",
         ["Le gén. de Gaulle arriva.", "Retour mer. prochain.", "Je vois la mer.", "Puis le ciel."]),
        ("es", "El Cnel. Ruiz y el Tte. Gómez llegaron. Todos callaron.",
         ["El Cnel. Ruiz y el Tte. Gómez llegaron.", "Todos callaron."]),
        ("it", "Il gen. Bianchi e il col. Neri sono qui. Il 15 gen. 2025 partono.",
         ["Il gen. Bianchi e il col. Neri sono qui.", "Il 15 gen. 2025 partono."]),
        ("ru", "Ген. Петров ушёл. Полк. Сидоров его заменил.", ["Ген. Петров ушёл.", "Полк. Сидоров его заменил."]),
        # contracts (round 26 of hand cases: 31 of 36 at first reading)
        ("de", "Dies gilt nicht für Ansprüche gem. §§ 823 ff. BGB. Im Übrigen bleibt es dabei.",
         ["Dies gilt nicht für Ansprüche gem. §§ 823 ff. BGB.", "Im Übrigen bleibt es dabei."]),
        ("fr", "Article 3 – Durée\n3.1. Le contrat prend effet le 1er janvier. 3.2. Il est conclu pour un an.",
         ["Article 3 – Durée", "3.1. Le contrat prend effet le 1er janvier.", "3.2. Il est conclu pour un an."]),
        ("ru", "Договор вступает в силу 1 января 2025 г. 3.2. Он действует один год.",
         ["Договор вступает в силу 1 января 2025 г.", "3.2. Он действует один год."]),
        ("ja", "借主（以下「乙」という。）は賃料を支払う。貸主はこれを確認する。",
         ["借主（以下「乙」という。）は賃料を支払う。", "貸主はこれを確認する。"]),
        # web text (round 27 of hand cases: 29 of 36 at first reading)
        ("es", "Cuesta aprox. 20 € con envío incl. Merece la pena.", ["Cuesta aprox. 20 € con envío incl.", "Merece la pena."]),
        ("it", "Costa ca. 20 € spedizione incl. Ne vale la pena.", ["Costa ca. 20 € spedizione incl.", "Ne vale la pena."]),
        ("pt", "Custa aprox. R$ 20 com frete. Vale a pena!", ["Custa aprox. R$ 20 com frete.", "Vale a pena!"]),  # an amount
        # technical text (round 28 of hand cases: 34 of 36 at first reading)
        ("fr", "Voir tabl. 2. Fin.", ["Voir tabl. 2.", "Fin."]),
        ("ru", "См. табл. 2. Конец.", ["См. табл. 2.", "Конец."]),
        # doses, hours and recipes (round 29 of hand cases: 32 of 36 at first reading)
        ("de", "Nehmen Sie 2x tägl. 1 Tbl. ein. Gute Besserung.", ["Nehmen Sie 2x tägl. 1 Tbl. ein.", "Gute Besserung."]),
        # such a unit may end a sentence where its letters are an acronym's: "en CP.", "affetto da ALL."
        ("fr", "Il est en CP. Il a 6 ans.", ["Il est en CP.", "Il a 6 ans."]),
        ("it", "Affetto da ALL. Il paziente guarì.", ["Affetto da ALL.", "Il paziente guarì."]),
        ("es", "Usamos LDA. Luego SVM.", ["Usamos LDA.", "Luego SVM."]),
        ("fr", "Prendre 1 cp. matin et soir. Consultations : lun.–jeu. de 8 h à 12 h. Merci.",
         ["Prendre 1 cp. matin et soir.", "Consultations : lun.–jeu. de 8 h à 12 h.", "Merci."]),
        ("ru", "Приём: пн.–чт. с 8 до 12 ч. Пт. по записи.", ["Приём: пн.–чт. с 8 до 12 ч.", "Пт. по записи."]),
        # "г." and "д." are abbreviations here, not the items of an enumeration
        ("ru", "Адрес: г. Москва, ул. Ленина, д. 1, кв. 5. Звоните заранее.",
         ["Адрес: г. Москва, ул. Ленина, д. 1, кв. 5.", "Звоните заранее."]),
    ],
)  # fmt: skip
def test_abbreviations_of_addresses_titles_and_references_in_each_language(language, text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        # an hour after a number may end a sentence, as a kilometre does; before lowercase it goes on
        ("es", "Respondemos en 24 h. ¡Gracias!", ["Respondemos en 24 h.", "¡Gracias!"]),
        ("es", "Abre a las 9 h. de la mañana.", ["Abre a las 9 h. de la mañana."]),
        ("pt", "Respondemos em 24 h. Obrigado!", ["Respondemos em 24 h.", "Obrigado!"]),
        ("it", "Rispondiamo in 24 h. Grazie!", ["Rispondiamo in 24 h.", "Grazie!"]),
        ("ru", "Отвечаем в течение 24 ч. Спасибо!", ["Отвечаем в течение 24 ч.", "Спасибо!"]),
        ("ru", "Приходите в 10 ч. утра.", ["Приходите в 10 ч. утра."]),
        # a unit after a number with decimals or thousands, as after a whole one ("à 9 h. Elle")
        ("fr", "Il mesure 1,80 m. Il est grand.", ["Il mesure 1,80 m.", "Il est grand."]),
        ("fr", "Le trajet fait 1.250,5 m. Ensuite on tourne.", ["Le trajet fait 1.250,5 m.", "Ensuite on tourne."]),
    ],
)  # fmt: skip
def test_a_unit_after_a_number_may_end_a_sentence(language, text, sentences):
    # round 20 of hand cases, written before the segmenter read them: 29 of 36 with the language given
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("de", "Also alles bestens, wie immer :) Also für eine Nacht reicht es.",
         ["Also alles bestens, wie immer :)", "Also für eine Nacht reicht es."]),
        ("en", "I loved it :-) The staff was great :) and kind. Ok ;-) Fine.",
         ["I loved it :-)", "The staff was great :) and kind.", "Ok ;-)", "Fine."]),
        ("de", "Alles gut. ;) Wir kommen wieder. Toll :) :) Danke.",
         ["Alles gut. ;)", "Wir kommen wieder.", "Toll :) :)", "Danke."]),
        ("en", "Pick one 1) red 2) green 3) blue", ["Pick one 1) red", "2) green", "3) blue"]),
    ],
)  # fmt: skip
def test_a_smiley_standing_alone_before_a_capital_ends_its_sentence(language, text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("es", "La reunión dura 2 hs. y media. Luego comemos.", ["La reunión dura 2 hs. y media.", "Luego comemos."]),
        ("it", "Il consiglio reg. si riunisce domani. Poi si vota.",
         ["Il consiglio reg. si riunisce domani.", "Poi si vota."]),
        ("nl", "Het geb. jaar is 1990. Hij woont hier.", ["Het geb. jaar is 1990.", "Hij woont hier."]),
        ("nl", "Het is laat. 's Avonds eten we. (zie boven)", ["Het is laat.", "'s Avonds eten we.", "(zie boven)"]),
        ("en", "I have one. i used to have two.", ["I have one.", "i used to have two."]),  # web text
        ("es", "Compré un iPhone nuevo. iPhone es una marca.", ["Compré un iPhone nuevo.", "iPhone es una marca."]),
        ("it", "Abbiamo comprato su eBay. eBay è famoso.", ["Abbiamo comprato su eBay.", "eBay è famoso."]),
        ("pt", "Ninguém sabe o que é. Vamos ver.", ["Ninguém sabe o que é.", "Vamos ver."]),  # no initial
        ("it", "Così è. Non c'è altro.", ["Così è.", "Non c'è altro."]),
    ],
)  # fmt: skip
def test_a_lowercase_word_after_a_stop_goes_on_where_edited_prose_is_the_rule(language, text, sentences):
    """Spanish, Italian, Portuguese and Dutch (not English web text), but a name with an inner capital
    opens one; "é" and "è" are words, not initials."""
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("pt", "Chuva fecha estradas no interior Os motoristas esperaram seis horas.",
         ["Chuva fecha estradas no interior", "Os motoristas esperaram seis horas."]),
        ("pt", "Vendas sobem 3% Em março a loja vendeu mais. Ela leu o jornal O Globo ontem.",
         ["Vendas sobem 3%", "Em março a loja vendeu mais.", "Ela leu o jornal O Globo ontem."]),
        ("pt", "Vimos «Aluga-se Um Namorado» ontem.", ["Vimos «Aluga-se Um Namorado» ontem."]),
        ("pt", "Chuva fecha estradas no interior Os motoristas esperaram.\nDepois choveu.",
         ["Chuva fecha estradas no interior Os motoristas esperaram.", "Depois choveu."]),
        ("de", "Stadt baut neue Brücke Die Arbeiten beginnen im Mai.",
         ["Stadt baut neue Brücke Die Arbeiten beginnen im Mai."]),
        ("nl", "Ik las het in De Standaard vandaag.", ["Ik las het in De Standaard vandaag."]),
        ("en", "We watched The Matrix again.", ["We watched The Matrix again."]),
    ],
)  # fmt: skip
def test_a_headline_run_into_its_story_ends_before_a_capitalised_article(language, text, sentences):
    """Text that lost its line breaks (in text with them a headline has its own line); only Portuguese,
    where such articles seldom start names."""
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("pt", "Lula repete aos amigos: «Só tem campanha onde eu vou.» A coordenação viaja.",
         ["Lula repete aos amigos:", "«Só tem campanha onde eu vou.»", "A coordenação viaja."]),
        ("pt", 'O plano é decretar: "Foi um protesto. Só isso".', ['O plano é decretar:', '"Foi um protesto.', 'Só isso".']),
        ("pt", "Custo: «baixo», disse.", ["Custo: «baixo», disse."]),  # a quotation that opens no sentence
        ("pt", "Filme: «Central do Brasil», de Walter Salles.", ["Filme: «Central do Brasil», de Walter Salles."]),
        ("pt", "Ele afirmou: «Não há dúvida». Saiu.", ["Ele afirmou:", "«Não há dúvida».", "Saiu."]),
        ("pt", "O ministro (que declarou: «Nada a dizer.») saiu.", ["O ministro (que declarou: «Nada a dizer.») saiu."]),
        ("es", "Lo dijo la Dra. Pérez: «No hay riesgo.» Todos se callaron.",
         ["Lo dijo la Dra. Pérez: «No hay riesgo.»", "Todos se callaron."]),
        ("fr", "Il a dit : « Je viens demain. » Puis il est parti.",
         ["Il a dit : « Je viens demain. »", "Puis il est parti."]),
        ("fr", "On n'en revenait pas ; Selon ce discours, tout va bien ; et voilà.",
         ["On n'en revenait pas ;", "Selon ce discours, tout va bien ; et voilà."]),
        ("de", "Das Wetter war schlecht; Der Kindergarten blieb zu.", ["Das Wetter war schlecht;", "Der Kindergarten blieb zu."]),
        ("de", "Die Firma (Sitz in Berlin; Gründung 1900) wächst.", ["Die Firma (Sitz in Berlin; Gründung 1900) wächst."]),
        ("de", "Er kam; er sah; er siegte.", ["Er kam; er sah; er siegte."]),
        ("en", "It rained all day; Paris was wet.", ["It rained all day; Paris was wet."]),
        ("es", "Llovió; Madrid estaba mojada.", ["Llovió; Madrid estaba mojada."]),
        ("fr", "Il pleut ;) Alors on reste.", ["Il pleut ;)", "Alors on reste."]),  # a smiley, no semicolon
    ],
)  # fmt: skip
def test_a_colon_or_semicolon_ends_a_sentence_where_ud_writes_one_there(language, text, sentences):
    """A colon before a quoted sentence in Portuguese (UD Bosque: 14 of 15), not before a quoted title, nor
    in Spanish, French or Italian; a semicolon before a capital in French and German (UD: 7 of 7), not
    in English or Spanish; neither inside brackets."""
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("es", "—¿Vienes? —preguntó ella. —Sí —dije.", ["—¿Vienes? —preguntó ella.", "—Sí —dije."]),
        ("ru", "— Куда? — спросил он. — Домой.", ["— Куда? — спросил он.", "— Домой."]),
        ("en", "Fine. — The end.", ["Fine.", "— The end."]),  # a dash before a capital opens a sentence
    ],
)  # fmt: skip
def test_a_dialogue_tag_after_a_dash_goes_on(language, text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("zh", "他在Google工作。She is nice.我们走吧。Mr.王来了。",
         ["他在Google工作。", "She is nice.", "我们走吧。", "Mr.王来了。"]),  # "." before CJK ends a plain word
        ("ja", "U.S.の経済。etc.など。", ["U.S.の経済。", "etc.など。"]),
        ("ja", "これはペンです．あれは本です．価格は３．５％です．", ["これはペンです．", "あれは本です．", "価格は３．５％です．"]),
        ("ja", "はい｡いいえ｡", ["はい｡", "いいえ｡"]),  # the half-width stop
        ("ja", "１．はじめに", ["１．はじめに"]),  # a full-width "．" after a digit numbers a heading
        ("ja", "『君の名は。』を見た。面白かった。", ["『君の名は。』を見た。", "面白かった。"]),
        ("zh", "我读了《你好！世界》这本书。很好看。", ["我读了《你好！世界》这本书。", "很好看。"]),
        # a PDF's lines: one line break between Chinese or Japanese characters wraps, a blank line ends
        ("ja", "これは父の\n家です。第一章\n\n本文です。", ["これは父の\n家です。", "第一章", "本文です。"]),
        ("zh", "我们明天\n一起去。好！", ["我们明天\n一起去。", "好！"]),
        # but not after a numbered article or chapter heading, alone or with its title
        ("zh", "第一条\n合同标的\n\n出租人将房屋出租。", ["第一条", "合同标的", "出租人将房屋出租。"]),
        ("ja", "第1条（目的）\n本契約は建物の賃貸を定め、乙はこれを\n承諾する。",
         ["第1条（目的）", "本契約は建物の賃貸を定め、乙はこれを\n承諾する。"]),
        ("zh", "第三章　总则\n本合同自签订之日起生效。", ["第三章　总则", "本合同自签订之日起生效。"]),
        ("zh", "第二条规定的义务由乙方\n承担。", ["第二条规定的义务由乙方\n承担。"]),  # a line of text
        ("zh", "详见附件（附件一。）。请查收。", ["详见附件（附件一。）。", "请查收。"]),  # a stop after the bracket
    ],
)  # fmt: skip
def test_cjk_stops_titles_quotations_and_line_breaks(language, text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


def test_the_hard_cases_of_the_benchmark_split_as_written_when_the_language_is_given():
    # Written before the segmenter read them; six misses then (66 of 72) led to the rules tested above.
    path = Path(__file__).parents[1] / "benchmarks" / "data" / "sentences" / "hard_cases.jsonl"
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(cases) == 72
    wrong = [c["text"] for c in cases if [c["text"][a:b] for a, b in sentence_spans(c["text"], c["lang"])]
             != c["sentences"]]  # fmt: skip
    assert wrong == []


def test_the_rounds_of_hand_cases_split_as_written_but_for_those_left_open():
    # Rounds 19-77 (2,124 cases, written before they were run; 1,735 right at first reading): every case
    # a rule was written for stays right, and those left open are conventions or ambiguities that
    # benchmarks/sentence_rules.md names (a CJK ellipsis, an inline enumeration, a colon before a quote)
    path = Path(__file__).parents[1] / "benchmarks" / "data" / "sentences" / "hand_rounds.jsonl"
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(cases) == 2124
    wrong = {c["text"][:24] for c in cases if [c["text"][a:b] for a, b in sentence_spans(c["text"], c["lang"])]
             != c["sentences"]}  # fmt: skip
    assert (
        wrong
        == {
            "Schreiben Sie an info@fi",  # "binnen 24 Std. Danke": a German noun may follow "Std."
            "他等了很久……最后走了。",  # "……" also marks an omission inside a sentence
            "Ele perguntou: «Quem é?»",  # Bosque ends the sentence at such a colon
            "Wir treffen uns am Hbf. ",  # "am Hbf. München": "Hbf." may end a sentence
            "Die Parteien vereinbaren",  # "a) Lieferung; b) Montage.": an inline enumeration is cut
            "Статья 3. Срок действия\n",  # a heading with a stop after its number
            "有人知道吗？？我的手机充不进电了……先谢谢了！",  # "……" before Chinese text, as above
            "誰か知りませんか？？スマホが充電できません…よろ",  # "…" before Japanese text
            "更新：现在好了:)是数据线的问题。",  # a smiley before Chinese text
            "更新：直りました(^^)ケーブルが原因でした。",  # a kaomoji
            "Sie wurde Dritte im 100-",  # "11,2 Sek. Das": a German noun may follow "Sek.", as "Std."
            "Costa, J. (org.). Histór",  # "Brasil. v. 2.": a reference's volume opens in lowercase
            "Gehalt nach TVöD, Entgel",  # "E 9. Befristung": a German ordinal before a noun, or an end
            "Обращаться к Петровой О.",  # "О. В. Собеседования": initials, and a noun no starter opens
            "Dispositif selon la reve",  # "en Al. La fig.": the element Al reads as "al." (alinéa, et al.)
            "Устройство по п. 1, отли",  # "из Al. На фиг.", as above
            # a name after an era goes on, as "Au IVe siècle av. J.-C. Alexandre conquit l'Asie." must
            "Il est né en 63 av. J.-C",
            "Nació en el 63 a. C. Aug",
            "Nacque nel 63 a.C. Augus",
            "Nasceu em 63 a.C. August",
            "Hij werd geboren in 63 v",
            "Vedere la sez. 4.2 e l'a",  # "l'app. B.": "app." (appendice) is also the word "app"
            "加入1 tsp. 泡打粉和香草糖。即可。",  # "tsp. 泡": a Latin abbreviation no list holds, before Chinese
            "Сравнивали группу А с гр",  # "группой Б. Группы": a noun opens, and no list holds it
            "Nationale-Nederlanden Sc",  # "Mij. N.V.": "Mij." (Maatschappij) is also the pronoun "mij."
            "Organisateur : Associati",  # "prés. Mme K. Berg": "prés." may end one as the meadows do
            "Seminario del Dip. di In",  # "ed. C. Ingresso": "ed." (edificio) is also the word "ed" (and)
            "Min. Van Dijk verdedigde",  # "Min." (minister) is also "min." (minutes), which ends sentences
            "Min. Farbabplatzungen, s",  # "Min." (minimal) likewise: "1,24 Euro / Min. Und" ends (UD)
            "Anna Schmidt geb. Weber ",  # "88 J. In": "J." (Jahre) after a number, elsewhere an initial
            "Doelpunten: 23. Bergwijn",  # "23. Bergwijn": a minute before its scorer, a list number elsewhere
            "La conc. de la sol. mère",  # "10 mM. Conserver": "mM" (millimolar) reads as "MM." (messieurs)
            "Cellen 10 min. centrifug",  # "300 x g. Supernatant": a unit after "x", not after its number
            "抗体按1:500稀释（Abcam，Cat. No",  # "Cat. No.": "cat." is an English word, whose lists stay
            "抗体を1:500で希釈する（Abcam、Cat.",  # the same
            "Murmurou: “Não pode ser…",  # Bosque's convention: a colon before a quoted sentence ends its own
            "“你来吗？”她问。“不，”他说，“我留在这儿。”",  # "“你来吗？”她问": an attribution after the quote needs the verb
            "“站住！”保安喊道。可小偷早已跑了。",  # "“站住！”保安喊道", likewise
            "他喃喃道：“不可能……”然后沉默了。",  # "……”然后": "……" also marks an omission inside a sentence
            "彼はつぶやいた。「そんなはずは……」そして黙った",  # "……」そして", likewise
            # a short Chinese or Japanese line wraps, as a PDF's does ("これは父の" then "家です。"), so a
            # letter's closing and name, or a greeting's name, run into what follows
            "王女士：\n\n您好！感谢您的来信。我会在周五前回复",
            "田中さん\n昨日はありがとう！土曜日に会える？\n鈴",
        }
    )


@pytest.mark.parametrize(
    ("text", "language", "sentences"),
    [
        # units (round 30): one letter after a number ends a Russian sentence before a capital, as "г."
        ("Он пробежал 100 м. Её время — 11,3 с.", "ru", ["Он пробежал 100 м.", "Её время — 11,3 с."]),
        ("Дом в 100 м. от реки. Рядом м. Арбатская.", "ru", ["Дом в 100 м. от реки.", "Рядом м. Арбатская."]),
        # Spanish "min." (minute) before a number goes on, and ends a sentence before a capital
        ("Marcó en el min. 85. Luego se retiró.", "es", ["Marcó en el min. 85.", "Luego se retiró."]),
        ("Esperó 5 min. Luego se fue.", "es", ["Esperó 5 min.", "Luego se fue."]),
        # court citations (round 31): the abbreviations of a citation go on; its end ends the sentence
        (
            "BGH, Beschl. v. 3.5.2021 – II ZB 1/20. Dem folgt das OLG.",
            "de",
            ["BGH, Beschl. v. 3.5.2021 – II ZB 1/20.", "Dem folgt das OLG."],
        ),
        (
            "Voir Cass. crim., 8 juill. 2020. La Cour rejette.",
            "fr",
            ["Voir Cass. crim., 8 juill. 2020.", "La Cour rejette."],
        ),
        (
            "Trib. Roma, sez. II, 2021. Il giudice accoglie.",
            "it",
            ["Trib. Roma, sez. II, 2021.", "Il giudice accoglie."],
        ),
        (
            "Rec. 12/2020 (vid. FJ 2). El Tribunal desestima.",
            "es",
            ["Rec. 12/2020 (vid. FJ 2).", "El Tribunal desestima."],
        ),
        (
            "Relatora: Des. Ana Lima. O acórdão transitou.",
            "pt",
            ["Relatora: Des. Ana Lima.", "O acórdão transitou."],
        ),
        # statutes (round 32): "lit.", "UAbs.", "Buchst.", "disp. adic.", "Stb.", "абз.", "пп." go on
        (
            "Nach Art. 6 UAbs. 2 Buchst. c lit. b gilt das. Ende.",
            "de",
            ["Nach Art. 6 UAbs. 2 Buchst. c lit. b gilt das.", "Ende."],
        ),
        ("Véase la disp. adic. 2.ª. Rige desde hoy.", "es", ["Véase la disp. adic. 2.ª.", "Rige desde hoy."]),
        (
            "Zie Stcrt. 2020, 45 en Stb. 2019, 12. Dat geldt.",
            "nl",
            ["Zie Stcrt. 2020, 45 en Stb. 2019, 12.", "Dat geldt."],
        ),
        ("См. абз. 3 и пп. 4. Это важно.", "ru", ["См. абз. 3 и пп. 4.", "Это важно."]),
        # what "a. F.", "n. F.", "h. M." (spaced or not) follow they close: a capital after them opens one
        (
            "Es gilt § 3 UStG a. F. Seit 2020 gilt die n.F. Das ist neu.",
            "de",
            ["Es gilt § 3 UStG a. F.", "Seit 2020 gilt die n.F.", "Das ist neu."],
        ),
        (
            "Nach h. M. ist das so, und § 5 n. F. vom 1. Mai gilt.",
            "de",
            ["Nach h. M. ist das so, und § 5 n. F. vom 1. Mai gilt."],
        ),
        ("Er kam ca. F. Müller sah ihn.", "de", ["Er kam ca. F. Müller sah ihn."]),  # no pair: an initial
        # Russian "т. п." closes as "т. д." does (a boundary of UD Russian GSD's second half, found after)
        ("О болезни и т. п. При своем движении.", "ru", ["О болезни и т. п.", "При своем движении."]),
        # financial reports (round 33): Dutch "mln."/"mld." end a sentence before a capital, go on
        # before lowercase ("mld. euro"); German "Vj.", Italian "trim.", Russian "долл." go on
        (
            "Winst: € 2 mld. De omzet steeg tot 3 mln. euro.",
            "nl",
            ["Winst: € 2 mld.", "De omzet steeg tot 3 mln. euro."],
        ),
        ("Der Gewinn stieg (Vj. 2,0 Mio. €). Gut.", "de", ["Der Gewinn stieg (Vj. 2,0 Mio. €).", "Gut."]),
        ("Nel II trim. 2024 è salito. Bene.", "it", ["Nel II trim. 2024 è salito.", "Bene."]),
        (
            "Долг — 5 млн долл. (в 2022 г. — 6). Хорошо.",
            "ru",
            ["Долг — 5 млн долл. (в 2022 г. — 6).", "Хорошо."],
        ),
        # scholarly references (round 34): Russian "указ. соч." goes on
        (
            "Так считает Петров (указ. соч., с. 45). Другие нет.",
            "ru",
            ["Так считает Петров (указ. соч., с. 45).", "Другие нет."],
        ),
        # classified ads (round 35): an abbreviation after a number and a hyphen is still one
        ("Sonnige 2-Zi.-Whg. in Köln. Ab sofort.", "de", ["Sonnige 2-Zi.-Whg. in Köln.", "Ab sofort."]),
        ("Сдаётся 1-комн. кв. в центре. Звоните.", "ru", ["Сдаётся 1-комн. кв. в центре.", "Звоните."]),
        ("Studio au 3e ét. avec vue. Libre.", "fr", ["Studio au 3e ét. avec vue.", "Libre."]),
        ("Продам шкаф в хор. сост. Дёшево.", "ru", ["Продам шкаф в хор. сост.", "Дёшево."]),
        # a word after its number that is no abbreviation ends the sentence as before
        ("Der Ertrag stieg 3-fach. Dann fiel er.", "de", ["Der Ertrag stieg 3-fach.", "Dann fiel er."]),
        # product listings (round 36): Italian and Dutch "ca." after what it qualifies ends before a
        # capital and goes on before a number; Dutch "max." as "min."; "Gew.", "Réf.", "Арт.", "вкл."
        ("Lungo 8 km ca. Il giro dura ca. 2 ore.", "it", ["Lungo 8 km ca.", "Il giro dura ca. 2 ore."]),
        ("Breed 20 cm ca. Hoog max. 30 cm. Klaar.", "nl", ["Breed 20 cm ca.", "Hoog max. 30 cm.", "Klaar."]),
        ("Gew. 3 kg. Gut verpackt.", "de", ["Gew. 3 kg.", "Gut verpackt."]),
        ("Réf. 9. Neuf.", "fr", ["Réf. 9.", "Neuf."]),
        ("Арт. 7, цена вкл. НДС. Новый.", "ru", ["Арт. 7, цена вкл. НДС.", "Новый."]),
        # job ads (round 37, written after the letter-trigram guess): "z. Hd.", "min."/"mín.", "техн."
        ("Bitte z. Hd. Herrn Roth. Danke.", "de", ["Bitte z. Hd. Herrn Roth.", "Danke."]),
        (
            "Deux ans min. requis. Cinq min. Puis rien.",
            "fr",
            ["Deux ans min. requis.", "Cinq min.", "Puis rien."],
        ),
        ("Exp. mín. 2 años. Sin más.", "es", ["Exp. mín. 2 años.", "Sin más."]),
        ("Esperienza min. 2 anni. Basta.", "it", ["Esperienza min. 2 anni.", "Basta."]),
        ("Нужно высшее техн. образование. Всё.", "ru", ["Нужно высшее техн. образование.", "Всё."]),
        # weather and traffic (round 38): "max."/"máx." go on to their number; "Ri.", "zw.", "dir."
        (
            "Sonnig, max. 20 °C. A 1 Ri. Bremen zw. zwei Ausfahrten gesperrt.",
            "de",
            ["Sonnig, max. 20 °C.", "A 1 Ri. Bremen zw. zwei Ausfahrten gesperrt."],
        ),
        ("Soleil, max. 20 °C. A6 dir. Paris fermée.", "fr", ["Soleil, max. 20 °C.", "A6 dir. Paris fermée."]),
        ("Sol, máx. 20 °C. Mañana más.", "es", ["Sol, máx. 20 °C.", "Mañana más."]),
        ("Sole, max. 20 °C. Domani pioggia.", "it", ["Sole, max. 20 °C.", "Domani pioggia."]),
        ("Sol, máx. 20 °C, mín. 9 °C. Amanhã chove.", "pt", ["Sol, máx. 20 °C, mín. 9 °C.", "Amanhã chove."]),
        # medical notes (round 39): "re."/"li.", "Pat." go on, "o. B." closes as "a. F.", "мм рт. ст."
        (
            "V. a. Fraktur li. distal. Die Pat. wartet.",
            "de",
            ["V. a. Fraktur li. distal.", "Die Pat. wartet."],
        ),
        ("Lunge o. B. Herz o.B. Abdomen weich.", "de", ["Lunge o. B.", "Herz o.B.", "Abdomen weich."]),
        ("АД 120/70 мм рт. ст., пульс 70. Норма.", "ru", ["АД 120/70 мм рт. ст., пульс 70.", "Норма."]),
        # patents (round 40): "Temp.", "rif.", "поз.", "фиг.", "темп." go on; an abbreviation after an
        # elided article is read as itself whatever kind it is ("d'env. 5 µm", as "l'art. 3" was)
        ("Die Temp. des Öls steigt. Gut.", "de", ["Die Temp. des Öls steigt.", "Gut."]),
        ("Une couche d'env. 5 µm. Puis rien.", "fr", ["Une couche d'env. 5 µm.", "Puis rien."]),
        ("Il sensore (rif. 12) misura. Bene.", "it", ["Il sensore (rif. 12) misura.", "Bene."]),
        (
            "Датчик (поз. 12) на фиг. 2 измеряет темп. среды. Всё.",
            "ru",
            ["Датчик (поз. 12) на фиг. 2 измеряет темп. среды.", "Всё."],
        ),
        # history and CVs (round 41): "habil." goes on; "Chr." goes on before lowercase; a Latin initial
        # after Chinese or Japanese writing is an initial ("导师：K. Schulz")
        ("Prof. Dr. habil. K. Roth lehrt. Gut.", "de", ["Prof. Dr. habil. K. Roth lehrt.", "Gut."]),
        (
            "Er starb 14 n. Chr. in Nola. Dann kam Tiberius.",
            "de",
            ["Er starb 14 n. Chr. in Nola.", "Dann kam Tiberius."],
        ),
        (
            "导师：K. Schulz教授。答辩委员：M. Roth博士。",
            "zh",
            ["导师：K. Schulz教授。", "答辩委员：M. Roth博士。"],
        ),
        # software manuals (round 42): a capital letter that labels a noun is no initial ("Anh. B.",
        # "l'annexe B.", "plan B", "vitamin D"), but one after another noun still is ("le président J.
        # Chirac", "o grupo A. Silva", a company); "sect.", "secc.", "seç.", "разд." go on to their number
        (
            "Siehe Abschn. 4.2 bzw. Anh. B. Fehler bitte melden.",
            "de",
            ["Siehe Abschn. 4.2 bzw. Anh. B.", "Fehler bitte melden."],
        ),
        (
            "Wir brauchen einen Plan B. Der erste scheiterte.",
            "de",
            ["Wir brauchen einen Plan B.", "Der erste scheiterte."],
        ),
        (
            "Voir la sect. 4.2 et l'annexe B. Signalez tout.",
            "fr",
            ["Voir la sect. 4.2 et l'annexe B.", "Signalez tout."],
        ),
        ("Entrée au bât. B. Merci de sonner.", "fr", ["Entrée au bât. B.", "Merci de sonner."]),
        ("Le président J. Chirac parle. Bien.", "fr", ["Le président J. Chirac parle.", "Bien."]),
        ("Véase la secc. 4.2 y el anexo B. Informe.", "es", ["Véase la secc. 4.2 y el anexo B.", "Informe."]),
        (
            "Il treno parte dal binario C. Buon viaggio.",
            "it",
            ["Il treno parte dal binario C.", "Buon viaggio."],
        ),
        ("Consulte a seç. 4.2 e o anexo B. Relate.", "pt", ["Consulte a seç. 4.2 e o anexo B.", "Relate."]),
        ("O grupo A. Silva & Silva lucrou. Bom.", "pt", ["O grupo A. Silva & Silva lucrou.", "Bom."]),
        ("Zie bijlage B. Meld fouten.", "nl", ["Zie bijlage B.", "Meld fouten."]),
        ("См. разд. 5 и прил. Б. Об ошибках пишите.", "ru", ["См. разд. 5 и прил. Б.", "Об ошибках пишите."]),
        ("Take vitamin D. It helps.", "en", ["Take vitamin D.", "It helps."]),
        # recipes (round 43): German "o. Ä."/"u. Ä." close a list, spaced or not, as "usw." does; "Pck.";
        # a Portuguese abbreviation of up to three letters after a number is a unit ("30 min. Em"), while
        # a title elsewhere goes on ("o Min. Guedes")
        ("Dazu passt Reis o. Ä. Guten Appetit!", "de", ["Dazu passt Reis o. Ä.", "Guten Appetit!"]),
        ("Reis o.ä. Guten Appetit!", "de", ["Reis o.ä.", "Guten Appetit!"]),
        ("Stifte u. Ä. im Angebot. Gut.", "de", ["Stifte u. Ä. im Angebot.", "Gut."]),
        ("1 Pck. Vanillezucker zugeben. Fertig.", "de", ["1 Pck. Vanillezucker zugeben.", "Fertig."]),
        ("Deixe descansar 30 min. Em seguida, asse.", "pt", ["Deixe descansar 30 min.", "Em seguida, asse."]),
        ("Vi o Min. Guedes ontem. Bom.", "pt", ["Vi o Min. Guedes ontem.", "Bom."]),
        # textbooks (round 44): theorems, equations and approximations go on to their number
        ("Alors le th. 3.2 s'applique. Cf. éq. (4).", "fr", ["Alors le th. 3.2 s'applique.", "Cf. éq. (4)."]),
        ("Se aplica el teor. 3.2. Véase la ec. (4).", "es", ["Se aplica el teor. 3.2.", "Véase la ec. (4)."]),
        ("Vale il teor. 3.2. La tesi segue.", "it", ["Vale il teor. 3.2.", "La tesi segue."]),
        ("Vale o teor. 3.2. A prova segue.", "pt", ["Vale o teor. 3.2.", "A prova segue."]),
        ("Zie vgl. (4) en fig. 2. Hieruit volgt x.", "nl", ["Zie vgl. (4) en fig. 2.", "Hieruit volgt x."]),
        ("См. ур. (4): прибл. 6 моль. Это всё.", "ru", ["См. ур. (4): прибл. 6 моль.", "Это всё."]),
        # letters (round 45): a letter's outgoing and incoming numbers ("Исх. № 45", "Вх. № 7")
        ("Исх. № 45 от 3 мая. Вх. № 7. Всё.", "ru", ["Исх. № 45 от 3 мая.", "Вх. № 7.", "Всё."]),
        # biographies (round 46): a Latin initial glued to Chinese or Japanese writing, which the regex
        # had read as a word of two letters ("由J."), is an initial, as after a colon
        ("该寺始建于12世纪。17世纪由J. Smith重修。", "zh", ["该寺始建于12世纪。", "17世纪由J. Smith重修。"]),
        ("17世紀にJ. Smithが再建した。", "ja", ["17世紀にJ. Smithが再建した。"]),
        ("17世纪由JS. 重修。", "zh", ["17世纪由JS.", "重修。"]),  # two letters: a word, as before
        # scripture and drama (round 47): a book of the Bible goes on to its chapter and verse, not to
        # another number ("Ich traf Tim. 3 Tage"); "!" before a lowercase word goes on in every language
        # but English, where web text writes "really? i"; scenes ("sc.", "esc.", "явл.")
        (
            "Vgl. Joh. 3,16 und Röm. 8,28. Beide. Ich traf Tim. 3 Tage später kam er.",
            "de",
            ["Vgl. Joh. 3,16 und Röm. 8,28.", "Beide.", "Ich traf Tim.", "3 Tage später kam er."],
        ),
        ("Véase 1 Cor. 13, 4-7. El amor.", "es", ["Véase 1 Cor. 13, 4-7.", "El amor."]),
        ("См. 1 Кор. 13:4–7. Любовь.", "ru", ["См. 1 Кор. 13:4–7.", "Любовь."]),
        (
            "Scrive: «Oh amici! voi non sapete». Oh amici! Voi sì.",
            "it",
            ["Scrive: «Oh amici! voi non sapete».", "Oh amici!", "Voi sì."],
        ),
        (
            "« Ô mes amis ! vous ne savez pas. » Le vers.",
            "fr",
            ["« Ô mes amis ! vous ne savez pas. »", "Le vers."],
        ),
        ("Поэт: «О други! вы не знаете». Стих.", "ru", ["Поэт: «О други! вы не знаете».", "Стих."]),
        ("did you go? i could not", "en", ["did you go?", "i could not"]),
        ("À l'acte III, sc. 2, Hamlet parle. Puis.", "fr", ["À l'acte III, sc. 2, Hamlet parle.", "Puis."]),
        ("En el acto III, esc. 2, habla. Luego.", "es", ["En el acto III, esc. 2, habla.", "Luego."]),
        ("В д. III, явл. 2 говорит Гамлет. Затем.", "ru", ["В д. III, явл. 2 говорит Гамлет.", "Затем."]),
        # museum guides (round 49): a range of abbreviations goes on when either end is a title ("Di.–So.",
        # where "So." alone is a word); "erm.", "Hst.", "rid.", "льгот.", "авт.", "ост." go on; "tgl.",
        # "ежедн." and Russian "мин." go on before lowercase and may end a sentence
        (
            "Geöffnet Di.–So. 10–18 Uhr, erm. 5 €. Gut.",
            "de",
            ["Geöffnet Di.–So. 10–18 Uhr, erm. 5 €.", "Gut."],
        ),
        (
            "Bus bis Hst. Rathaus. Führungen tgl. um 11 Uhr. Gut.",
            "de",
            ["Bus bis Hst. Rathaus.", "Führungen tgl. um 11 Uhr.", "Gut."],
        ),
        ("Einmal tgl. Dann nicht mehr.", "de", ["Einmal tgl.", "Dann nicht mehr."]),
        ("Ingresso 8 €, rid. 5 €. Bene.", "it", ["Ingresso 8 €, rid. 5 €.", "Bene."]),
        (
            "Вход льгот. 250 руб. Авт. № 5 до ост. «Мэрия». Далее 5 мин. пешком. Ждать 5 мин. Потом всё.",
            "ru",
            [
                "Вход льгот. 250 руб.",
                "Авт. № 5 до ост. «Мэрия».",
                "Далее 5 мин. пешком.",
                "Ждать 5 мин.",
                "Потом всё.",
            ],
        ),
        # abstracts (round 51): a group's letter ends a sentence before a clear opener ("le groupe B. Les"),
        # as a company named after its founder does not ("O grupo A. Silva", above); Russian "соавт."
        (
            "On compare le groupe A et le groupe B. Les groupes.",
            "fr",
            ["On compare le groupe A et le groupe B.", "Les groupes."],
        ),
        ("Il gruppo A e il gruppo B. I gruppi.", "it", ["Il gruppo A e il gruppo B.", "I gruppi."]),
        ("Иванов и соавт. (2020) нашли. Это всё.", "ru", ["Иванов и соавт. (2020) нашли.", "Это всё."]),
        ("you and I. Did you", "en", ["you and I.", "Did you"]),  # the pronoun still ends one
        # minutes and offices (round 52): where a stop before lowercase may end a sentence (German,
        # French, Russian), officers need their abbreviations: "Vors.", "secr.", "пред.", "секр.", and
        # French "prés." (président), which may end one as the meadows ("les prés. Elles")
        ("Vom Vors. geleitet. Gut.", "de", ["Vom Vors. geleitet.", "Gut."]),
        (
            "Le prés. du conseil et le secr. parlent. Les vaches sont dans les prés. Elles mangent.",
            "fr",
            ["Le prés. du conseil et le secr. parlent.", "Les vaches sont dans les prés.", "Elles mangent."],
        ),
        ("Ведёт пред. совета. Секр. ведёт протокол.", "ru", ["Ведёт пред. совета.", "Секр. ведёт протокол."]),
        # social media (round 53): a face or a hand with no stop before it ends a sentence before a
        # capital, as a smiley does; after a stop it opens the next, as before; a heart is a word; a
        # closing mark set apart opens no sentence outside English ("avant ven. !!", "décorée... !"),
        # while English web text writes "?" for a lost character ("WORK. ? WE")
        ("Heute 30 °C in Berlin 😅 Morgen Regen.", "de", ["Heute 30 °C in Berlin 😅", "Morgen Regen."]),
        ("Toll! 😅 Morgen. Ich ❤️ Berlin.", "de", ["Toll!", "😅 Morgen.", "Ich ❤️ Berlin."]),
        (
            "Great day 😊 See you! I love it 😍 so much",
            "en",
            ["Great day 😊", "See you!", "I love it 😍 so much"],
        ),
        ("Сегодня +30 °C 👍 Завтра дождь.", "ru", ["Сегодня +30 °C 👍", "Завтра дождь."]),
        ("Répondez avant ven. !! Merci.", "fr", ["Répondez avant ven. !!", "Merci."]),
        ("Une chambre décorée... ! Que dire ?", "fr", ["Une chambre décorée... !", "Que dire ?"]),
        ("KEEP UP THE GOOD WORK. ? WE AT HOME", "en", ["KEEP UP THE GOOD WORK.", "?", "WE AT HOME"]),
        # insurance (round 54): a number's abbreviated ending, German and Dutch ("Polisnr.", "Kundennr.")
        ("Polisnr. 12345 (inboedel). Vermeld dit.", "nl", ["Polisnr. 12345 (inboedel).", "Vermeld dit."]),
        ("Bitte Kundennr. 123 angeben. Danke.", "de", ["Bitte Kundennr. 123 angeben.", "Danke."]),
        # package leaflets (round 56): tablets and doses after a number go on to a number or a lowercase
        # word and may end a sentence ("comp.", "cpr.", "tabl.", Dutch "dd.")
        (
            "Tome 1 comp. 3 veces al día, 6 comp. al día como máximo. Tome 1 comp. Después, agua.",
            "es",
            ["Tome 1 comp. 3 veces al día, 6 comp. al día como máximo.", "Tome 1 comp.", "Después, agua."],
        ),
        ("Adulti: 1 cpr. 3 volte al giorno. Bene.", "it", ["Adulti: 1 cpr. 3 volte al giorno.", "Bene."]),
        (
            "Volwassenen: 3 dd. 1 tablet, 6 tabl. per dag. Goed.",
            "nl",
            ["Volwassenen: 3 dd. 1 tablet, 6 tabl. per dag.", "Goed."],
        ),
        # event notices (round 57): German "bek.", "freundl.", French "Inscr.", "réd." and Spanish "red."
        # (soft: "la red. Luego" is the network), "pdte."/"pdta.", Russian "дир.", "зам."
        (
            "Bei allen bek. VVK-Stellen. Mit freundl. Grüßen.",
            "de",
            ["Bei allen bek. VVK-Stellen.", "Mit freundl. Grüßen."],
        ),
        (
            "Inscr. avant mai (tarif réd. 10 €). Merci.",
            "fr",
            ["Inscr. avant mai (tarif réd. 10 €).", "Merci."],
        ),
        (
            "Taquilla (red. 10 €). Falla la red. Luego, la pdta. Dña. Berg.",
            "es",
            ["Taquilla (red. 10 €).", "Falla la red.", "Luego, la pdta. Dña. Berg."],
        ),
        ("Центр, дир. К. Берг, зам. И. Петров. Всё.", "ru", ["Центр, дир. К. Берг, зам. И. Петров.", "Всё."]),
        # appliance manuals (round 55): "Mod." before a model, "Pos." and "cod." before a number, which
        # may end a sentence elsewhere ("Si accetta il pos. Grazie"); Russian "макс.", "мод.", "зав."
        (
            "Gerät trennen (Pos. 3). Mod. XR-200 ist neu.",
            "de",
            ["Gerät trennen (Pos. 3).", "Mod. XR-200 ist neu."],
        ),
        (
            "Con il cod. 4711. Si accetta il pos. Grazie.",
            "it",
            ["Con il cod. 4711.", "Si accetta il pos.", "Grazie."],
        ),
        ("Mod. XR-200, n.º 5. Bien.", "es", ["Mod. XR-200, n.º 5.", "Bien."]),
        (
            "Залейте макс. 1,5 л. Мод. XR-200, зав. № 5. Всё.",
            "ru",
            ["Залейте макс. 1,5 л.", "Мод. XR-200, зав. № 5.", "Всё."],
        ),
        # real estate (round 58): listings' abbreviations that go on before a number and may end a
        # sentence ("Bj.", "cond.", "тел.", "rdv.", "dispo."), a letter after a class or an energy label,
        # "energ." between them, and a colon after the label noun
        ("Bj. 1998. Der Altbau, Bj. Ende. Gut.", "de", ["Bj. 1998.", "Der Altbau, Bj.", "Ende.", "Gut."]),
        ("Kl. D. Provisionsfrei. Anh. B. Gut.", "de", ["Kl. D.", "Provisionsfrei.", "Anh. B.", "Gut."]),
        (
            "Visites sur rdv. uniquement, dispo. immédiatement. Sur rdv. Appelez.",
            "fr",
            ["Visites sur rdv. uniquement, dispo. immédiatement.", "Sur rdv.", "Appelez."],
        ),
        ("Classe énerg. C. Loyer libre.", "fr", ["Classe énerg. C.", "Loyer libre."]),
        (
            "Spese cond. 60 €. Classe energ. G. Libero.",
            "it",
            ["Spese cond. 60 €.", "Classe energ. G.", "Libero."],
        ),
        ("Cond. R$ 600. Paga o cond. Depois, sim.", "pt", ["Cond. R$ 600.", "Paga o cond.", "Depois, sim."]),
        ("Certificado: letra E. Visitas por tel.", "es", ["Certificado: letra E.", "Visitas por tel."]),
        ("Classe energética: letra B. Sem fiador.", "pt", ["Classe energética: letra B.", "Sem fiador."]),
        (
            "Energielabel: C. Bouwjaar 1975, bj. 1975. Goed.",
            "nl",
            ["Energielabel: C.", "Bouwjaar 1975, bj. 1975.", "Goed."],
        ),
        ("Auteur: J. Jansen schreef het.", "nl", ["Auteur: J. Jansen schreef het."]),  # a name's initial
        (
            "Звоните по тел. 8-900-123. Пишите по тел. Всё.",
            "ru",
            ["Звоните по тел. 8-900-123.", "Пишите по тел.", "Всё."],
        ),
        ("Слово на букву А. Это всё.", "ru", ["Слово на букву А.", "Это всё."]),
        # an abbreviation run into Chinese or Japanese text is one ("请致电Mr. Wang"), a long word's end is none
        ("有意者请致电Mr. Wang。谢谢。", "zh", ["有意者请致电Mr. Wang。", "谢谢。"]),
        ("担当はDr. Sato です。よろしく。", "ja", ["担当はDr. Sato です。", "よろしく。"]),
        ("我们都用Python. Then we left.", "zh", ["我们都用Python.", "Then we left."]),
        # privacy notices (round 59): a dotted company form closes its name, and a sentence before a capital,
        # where another initialism needs a word that opens sentences; before lowercase it goes on
        (
            "Es Ejemplo, S.L. Contacto: dpo@x.es. La S.L. tiene",
            "es",
            ["Es Ejemplo, S.L.", "Contacto: dpo@x.es.", "La S.L. tiene"],
        ),
        (
            "Société X S.A.S. Contact. La S.A.S. au capital",
            "fr",
            ["Société X S.A.S.", "Contact.", "La S.A.S. au capital"],
        ),
        (
            "Titolare è Esempio S.r.l. Contatti. Rossi S.p.A. Il",
            "it",
            ["Titolare è Esempio S.r.l.", "Contatti.", "Rossi S.p.A.", "Il"],
        ),
        (
            "Ze werkt bij Jansen B.V. Mevr. Bakker is baas.",
            "nl",
            ["Ze werkt bij Jansen B.V.", "Mevr. Bakker is baas."],
        ),
        ("Der Verein XY e.V. Vorsitz: K. Berg.", "de", ["Der Verein XY e.V.", "Vorsitz: K. Berg."]),
        ("Die U.S. Army kam.", "de", ["Die U.S. Army kam."]),  # no company form: a starter decides
        ("Sus derechos (arts. 15-22 RGPD). Bien.", "es", ["Sus derechos (arts. 15-22 RGPD).", "Bien."]),
        # invoices (round 60): a code goes on after an abbreviation as a number does ("Ref. A-12", "cta.
        # ES12"); "MwSt." may end a sentence, "Stk." goes on to its noun; a spaced pair that is a title goes
        # on ("в т. ч. НДС"), and so "н. э." (an era, which ends sentences) is soft, as "v. Chr." is
        (
            "Inkl. 19 % MwSt. Vielen Dank. Zzgl. MwSt. und Versand.",
            "de",
            ["Inkl. 19 % MwSt.", "Vielen Dank.", "Zzgl. MwSt. und Versand."],
        ),
        ("Pos. 1: 2 Stk. Schrauben. Gut.", "de", ["Pos. 1: 2 Stk. Schrauben.", "Gut."]),
        (
            "Ref. A-12, cant. 2, precio unit. 5,00 €. Dto. 10 % aplicado. A la cta. ES12 3456. Consulte la ref. Luego llame.",
            "es",
            [
                "Ref. A-12, cant. 2, precio unit. 5,00 €.",
                "Dto. 10 % aplicado.",
                "A la cta. ES12 3456.",
                "Consulte la ref.",
                "Luego llame.",
            ],
        ),
        ("Prezzo unit. 5,00 €. Sconto 10 %.", "it", ["Prezzo unit. 5,00 €.", "Sconto 10 %."]),
        (
            "Ref. A-12, qtd. 2, valor unit. R$ 5,00. Fim.",
            "pt",
            ["Ref. A-12, qtd. 2, valor unit. R$ 5,00.", "Fim."],
        ),
        (
            "Art. A-12, aant. 2, prijs p.st. € 5,00. IBAN NL12 t.n.v. Voorbeeld B.V. Btw-nr. 5.",
            "nl",
            ["Art. A-12, aant. 2, prijs p.st. € 5,00.", "IBAN NL12 t.n.v. Voorbeeld B.V.", "Btw-nr. 5."],
        ),
        (
            "Итого 12 000 руб., в т. ч. НДС 20 %. Это было до н. э. Ему было 14 лет в 14 г. н. э. в Ноле.",
            "ru",
            [
                "Итого 12 000 руб., в т. ч. НДС 20 %.",
                "Это было до н. э.",
                "Ему было 14 лет в 14 г. н. э. в Ноле.",
            ],
        ),
        # bug reports (round 61): "Win. 10", "Tel.", "Fax" before a number, in every language but English
        # (which they would move ContractNLI text for) and in Latin words amid Chinese and Japanese
        (
            "Nur unter Win. 10 möglich. Unter Linux ok. Fax. 0301 2345.",
            "de",
            ["Nur unter Win. 10 möglich.", "Unter Linux ok.", "Fax. 0301 2345."],
        ),
        (
            "Sous Win. 10. Puis tel. 01 23. Un homme tel. Puis.",
            "fr",
            ["Sous Win. 10.", "Puis tel. 01 23.", "Un homme tel.", "Puis."],
        ),
        ("仅在Win. 10上出现。请致电TEL. 010-1234。", "zh", ["仅在Win. 10上出现。", "请致电TEL. 010-1234。"]),
        (
            "お問い合わせはTEL. 03-1234まで。No. A-12です。",
            "ja",
            ["お問い合わせはTEL. 03-1234まで。", "No. A-12です。"],
        ),
        # university notices (round 62): departments and buildings ("Inst.", "Fak.", "Dép.", "Dpto.", "fac.",
        # "каф.", "корп."); German "f." after a word is "für", after a number "folgende"; a capital letter is
        # an initial or a label, not the lowercase abbreviation it spells ("корп. В.", not "в." of век);
        # "¡" and "¿" open what follows, as quotes do ("edif. C. ¡Entrada")
        (
            "Inst. f. Informatik, Fak. III. Gäste willkommen. Siehe S. 5 f. Die Frist.",
            "de",
            ["Inst. f. Informatik, Fak. III.", "Gäste willkommen.", "Siehe S. 5 f.", "Die Frist."],
        ),
        (
            "Séminaire du Dép. d'informatique. Entrée libre.",
            "fr",
            ["Séminaire du Dép. d'informatique.", "Entrée libre."],
        ),
        (
            "Del Dpto. de Física, edif. C. ¡Entrada libre! ¿Vienes? ¡Claro!",
            "es",
            ["Del Dpto. de Física, edif. C.", "¡Entrada libre!", "¿Vienes?", "¡Claro!"],
        ),
        (
            "Van de fac. Wiskunde, gebouw C. Iedereen welkom.",
            "nl",
            ["Van de fac. Wiskunde, gebouw C.", "Iedereen welkom."],
        ),
        (
            "Консультации: ауд. 2104. Семинар каф. информатики, корп. В. Вход свободный. Это было в XVIII в. В мае.",
            "ru",
            [
                "Консультации: ауд. 2104.",
                "Семинар каф. информатики, корп. В.",
                "Вход свободный.",
                "Это было в XVIII в.",
                "В мае.",
            ],
        ),
        # timetables and bookings (round 63): departure, arrival, car and seat ("Abf.", "Ank.", "Wg.", "Pl.",
        # "dép.", "arr.", "voit.", "part.", "bin.", "carr.", "lug.", "cheg.", "vertr.", "aank.", "отпр.", "ваг.",
        # "приб."); a seat's number ends a German sentence ("Pl. 45. Gute"); a name may end in a title
        # ("Lisboa-Sta. Apolónia"), a lowercase or capitalised word not ("c-Jun. Our", "non-MS. When")
        (
            "Abf. 14.32 Uhr von Gl. 7. Wg. 12, Pl. 45. Gute Reise. Ank. Frankfurt.",
            "de",
            ["Abf. 14.32 Uhr von Gl. 7.", "Wg. 12, Pl. 45.", "Gute Reise.", "Ank. Frankfurt."],
        ),
        (
            "Dép. 14 h, voit. 12, pl. 45. Bon voyage. Arr. Paris. Corresp. pour Lille.",
            "fr",
            ["Dép. 14 h, voit. 12, pl. 45.", "Bon voyage.", "Arr. Paris.", "Corresp. pour Lille."],
        ),
        (
            "Part. 14:32 bin. 7. Ritardo, carr. 12. Bene.",
            "it",
            ["Part. 14:32 bin. 7.", "Ritardo, carr. 12.", "Bene."],
        ),
        (
            "Reserva: carr. 12, lug. 45. Cheg. a Lisboa-Sta. Apolónia. Fim.",
            "pt",
            ["Reserva: carr. 12, lug. 45.", "Cheg. a Lisboa-Sta. Apolónia.", "Fim."],
        ),
        (
            "Vertr. 14.32 uur, pl. 45. Aank. Utrecht. Goed.",
            "nl",
            ["Vertr. 14.32 uur, pl. 45.", "Aank. Utrecht.", "Goed."],
        ),
        (
            "Отпр. в 14:32, ваг. 12. Приб. в Москву. Всё.",
            "ru",
            ["Отпр. в 14:32, ваг. 12.", "Приб. в Москву.", "Всё."],
        ),
        (
            "Na activates c-Jun. Our data. It is non-MS. When.",
            "en",
            ["Na activates c-Jun.", "Our data.", "It is non-MS.", "When."],
        ),
        # parliament (round 64): members and papers ("Drs.", "dip.", "exp.", "Деп.")
        ("Der Antrag (Drs. 20/1234) fiel. Gut.", "de", ["Der Antrag (Drs. 20/1234) fiel.", "Gut."]),
        (
            "El dip. García votó (exp. 122/000123). Bien.",
            "es",
            ["El dip. García votó (exp. 122/000123).", "Bien."],
        ),
        ("Деп. Иванов голосовал против. Всё.", "ru", ["Деп. Иванов голосовал против.", "Всё."]),
        # auction catalogues (round 65): signed, dated, collections, catalogues, estimates and heights; "est." is
        # soft where it is a word ("à l'est. Puis", the east) and goes on to an estimate ("Est. 3 000 €")
        (
            "Öl a. Lw., u. r. sign. u. dat. 1912. Provenienz: Slg. Müller. Lit.: Werkverz. Nr. 123. Gut.",
            "de",
            [
                "Öl a. Lw., u. r. sign. u. dat. 1912.",
                "Provenienz: Slg. Müller.",
                "Lit.: Werkverz. Nr. 123.",
                "Gut.",
            ],
        ),
        (
            "Provenance : coll. Dupont. Est. 3 000 €. Il habite à l'est. Puis cat. rais. n° 123.",
            "fr",
            ["Provenance : coll. Dupont.", "Est. 3 000 €.", "Il habite à l'est.", "Puis cat. rais. n° 123."],
        ),
        (
            "Procedencia: col. García. Est. 3.000 €. Bronce, alt. 45 cm. Fin.",
            "es",
            ["Procedencia: col. García.", "Est. 3.000 €.", "Bronce, alt. 45 cm.", "Fin."],
        ),
        ("Provenienza: coll. Rossi, Milano. Fine.", "it", ["Provenienza: coll. Rossi, Milano.", "Fine."]),
        (
            "Est. R$ 30.000. Bronze, alt. 45 cm. Procedência: col. Silva. Fim.",
            "pt",
            ["Est. R$ 30.000.", "Bronze, alt. 45 cm.", "Procedência: col. Silva.", "Fim."],
        ),
        (
            "Gesign. en gedat. 1912. Herkomst: coll. Jansen. Goed.",
            "nl",
            ["Gesign. en gedat. 1912.", "Herkomst: coll. Jansen.", "Goed."],
        ),
        (
            "Происхождение: собр. Иванова. Лит.: кат. № 123. Бронза, выс. 45 см. Клеймо.",
            "ru",
            ["Происхождение: собр. Иванова.", "Лит.: кат. № 123.", "Бронза, выс. 45 см.", "Клеймо."],
        ),
        (
            "Siehe Inhaltsverz. Seite 3 oben. Gut.",
            "de",
            ["Siehe Inhaltsverz. Seite 3 oben.", "Gut."],
        ),  # as "Werkverz."
        # obituaries (round 66): married, born, died, saints ("verh.", "Geb.", "overl.", "Sta.", "ved.", "св.");
        # a spaced pair that may end a sentence does so before a capital ("Hospizverein e. V. Kennwort")
        (
            "Er war verh. mit Eva. Spende an den Hospizverein e. V. Kennwort: Anna. Der Verein e. V., Vors. K. Berg.",
            "de",
            [
                "Er war verh. mit Eva.",
                "Spende an den Hospizverein e. V.",
                "Kennwort: Anna.",
                "Der Verein e. V., Vors. K. Berg.",
            ],
        ),
        ("En la parroquia de Sta. Ana. Bien.", "es", ["En la parroquia de Sta. Ana.", "Bien."]),
        (
            "Anna Bianchi ved. Verdi ci ha lasciati. Pace.",
            "it",
            ["Anna Bianchi ved. Verdi ci ha lasciati.", "Pace."],
        ),
        (
            "Geb. 3 mei 1935, overl. 12 jan. 2024. Rust.",
            "nl",
            ["Geb. 3 mei 1935, overl. 12 jan. 2024.", "Rust."],
        ),
        ("Отпевание в храме св. Николая. Всё.", "ru", ["Отпевание в храме св. Николая.", "Всё."]),
        # match reports (round 67): after extra time, penalties ("n. V.", "rig.", "pen.", "доп.", "пен.")
        (
            "Bayern gewann 2:1 n. V. Das Siegtor fiel spät.",
            "de",
            ["Bayern gewann 2:1 n. V.", "Das Siegtor fiel spät."],
        ),
        ("Reti: 67' rig. Vlahovic. Bene.", "it", ["Reti: 67' rig. Vlahovic.", "Bene."]),
        ("Luuk de Jong (pen.) 1-1. Goed.", "nl", ["Luuk de Jong (pen.) 1-1.", "Goed."]),
        (
            "Победил 2:1 в доп. время. Соболев, 67, с пен. (1:1). Всё.",
            "ru",
            ["Победил 2:1 в доп. время.", "Соболев, 67, с пен. (1:1).", "Всё."],
        ),
        # lab protocols (round 68): outside English a lowercase letter after a number is a unit and ends a
        # sentence before a capital ("300 g. Éliminer"), unless it opens a spaced abbreviation ("63 a. C.
        # Augusto", "14 n. Chr. in"); "Konz.", "Stammlsg.", "conc.", "sol." (soft: "sur le sol. Puis"),
        # "теч.", "след.", "Конц."
        (
            "Centrifuger à 300 g. Éliminer. La conc. de la sol. mère. Sur le sol. Puis.",
            "fr",
            ["Centrifuger à 300 g.", "Éliminer.", "La conc. de la sol. mère.", "Sur le sol.", "Puis."],
        ),
        (
            "Centrifugar 10 min a 300 g. Desechar. En el 63 a. C. Augusto vivió.",
            "es",
            ["Centrifugar 10 min a 300 g.", "Desechar.", "En el 63 a. C. Augusto vivió."],
        ),
        ("Konz. der Stammlsg. beträgt 10 mM. Gut.", "de", ["Konz. der Stammlsg. beträgt 10 mM.", "Gut."]),
        (
            "При 300 g. Инкубировать в теч. ночи. На след. день. Конц. исходного р-ра 10 мМ.",
            "ru",
            ["При 300 g.", "Инкубировать в теч. ночи.", "На след. день.", "Конц. исходного р-ра 10 мМ."],
        ),
        # car ads (round 69): German endings ("Sitzhzg.", "Effizienzkl."), "u. v. m.", combined, air
        # conditioning, consumption, registered, average; Russian "л. с." (horsepower) closes what it follows
        (
            "Klima, Sitzhzg. u. v. m. Besichtigung nach Absprache. Verbrauch komb. 5,2 l. Effizienzkl. B. Gut.",
            "de",
            [
                "Klima, Sitzhzg. u. v. m.",
                "Besichtigung nach Absprache.",
                "Verbrauch komb. 5,2 l.",
                "Effizienzkl. B.",
                "Gut.",
            ],
        ),
        (
            "Équipements : clim. auto. Conso. mixte 5,2 l. Bien.",
            "fr",
            ["Équipements : clim. auto.", "Conso. mixte 5,2 l.", "Bien."],
        ),
        (
            "Fiat, immatr. 03/2019. Consumi comb. 5,2 l. Bene.",
            "it",
            ["Fiat, immatr. 03/2019.", "Consumi comb. 5,2 l.", "Bene."],
        ),
        ("Verbruik gem. 5,2 l. Goed.", "nl", ["Verbruik gem. 5,2 l.", "Goed."]),
        ("Мощность 123 л. с. Один владелец.", "ru", ["Мощность 123 л. с.", "Один владелец."]),
        # parcel notices (round 70): "voraus." and "mögl." (soft: "geht voraus. Dann"), weekdays ("miér.",
        # "merc."), Italian "dim." before a number
        (
            "Lieferung voraus. am Mittwoch. Sie geht voraus. Dann mögl. ab 16 Uhr. Gut.",
            "de",
            ["Lieferung voraus. am Mittwoch.", "Sie geht voraus.", "Dann mögl. ab 16 Uhr.", "Gut."],
        ),
        ("Entrega el miér. 15 de mayo. Bien.", "es", ["Entrega el miér. 15 de mayo.", "Bien."]),
        (
            "Consegna merc. 15 maggio, dim. 30 x 20 cm. Bene.",
            "it",
            ["Consegna merc. 15 maggio, dim. 30 x 20 cm.", "Bene."],
        ),
        # encyclopaedia entries (round 72): compass points ("südl. von"), "Einw." and "hab." (soft: "8.400
        # Einw. Sie"), Dutch "gest." as "geb."; outside English an aside in brackets, then a stop, after such
        # an abbreviation is its sentence's; no Portuguese headline ends in a preposition ("autor de Os")
        (
            "Das Dorf liegt 5 km nördl. von Bonn. Es ist klein.",
            "de",
            ["Das Dorf liegt 5 km nördl. von Bonn.", "Es ist klein."],
        ),
        (
            "Die Stadt hat 8.400 Einw. Sie liegt am Rhein. Sie hat 8.400 Einw. (Stand: 2022). Gut.",
            "de",
            [
                "Die Stadt hat 8.400 Einw.",
                "Sie liegt am Rhein.",
                "Sie hat 8.400 Einw. (Stand: 2022).",
                "Gut.",
            ],
        ),
        (
            "La ville compte 3 200 hab. Elle est belle. Pop. : 12 345 hab. (2020). Bien.",
            "fr",
            ["La ville compte 3 200 hab.", "Elle est belle.", "Pop. : 12 345 hab. (2020).", "Bien."],
        ),
        (
            "Piet de Vries (geb. 1920, gest. 1990) schilderde. Zijn werk is bekend.",
            "nl",
            ["Piet de Vries (geb. 1920, gest. 1990) schilderde.", "Zijn werk is bekend."],
        ),
        (
            "É autor de Os Lusíadas e da Ode. Os policiais entram em greve Os sindicatos protestam.",
            "pt",
            ["É autor de Os Lusíadas e da Ode.", "Os policiais entram em greve", "Os sindicatos protestam."],
        ),
        # press releases (round 73): a telephone number's country code goes on after "тел." as a number does
        (
            "Звоните: тел. +7 495 123-45-67. Ждём вас.",
            "ru",
            ["Звоните: тел. +7 495 123-45-67.", "Ждём вас."],
        ),
        # reviews (round 74): "feat." and "ft." go on before a name but in English, where "feat." is a word;
        # Dutch "op." (opus) goes on before a number, and "op" still ends a sentence; Russian "Реж."
        ("Es enthält „Regen“ feat. Lena. Gut.", "de", ["Es enthält „Regen“ feat. Lena.", "Gut."]),
        ("It was quite a feat. The crowd cheered.", "en", ["It was quite a feat.", "The crowd cheered."]),
        ("新歌《雨》feat. Max. 已上线。", "zh", ["新歌《雨》feat. Max.", "已上线。"]),
        (
            "De Sonate op. 27 nr. 2 is mooi. Hij staat op. Daarna gaat hij.",
            "nl",
            ["De Sonate op. 27 nr. 2 is mooi.", "Hij staat op.", "Daarna gaat hij."],
        ),
        ("Реж. А. Звягинцев. Фильм хороший.", "ru", ["Реж. А. Звягинцев.", "Фильм хороший."]),
        # official notices (round 75): German "Az.", Russian "рег.", "нач.", "отд."
        (
            "Bescheid (Az. 12/345-67) ist erledigt. Gut.",
            "de",
            ["Bescheid (Az. 12/345-67) ist erledigt.", "Gut."],
        ),
        (
            "Подписал нач. отд. И. П. Сидоров. Рег. № 5 от 1 мая.",
            "ru",
            ["Подписал нач. отд. И. П. Сидоров.", "Рег. № 5 от 1 мая."],
        ),
        # fiction (round 71): outside English an ellipsis set apart before a closing quote closes the
        # quotation; set apart in brackets it is still an omission
        (
            "Er murmelte: „Das kann nicht sein …“ Dann schwieg er. Er kam (…) Dann ging er.",
            "de",
            ["Er murmelte: „Das kann nicht sein …“", "Dann schwieg er.", "Er kam (…) Dann ging er."],
        ),
    ],
)
def test_the_rules_the_later_rounds_led_to(text, language, sentences):
    # each case beside a sibling the rule implies, or a text it must leave as it was
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("text", "language", "sentences"),
    [
        # a line as wide as its paragraph's goes on before a capital (a German noun), outside English
        (
            "Normalerweise ist es nicht gut, denselben Schlüssel zum Unterschreiben\nund Verschlüsseln zu "
            "nutzen. Dieses Verfahren sollte in speziellen\nAnwendungsgebieten benutzt werden. Gut.",
            "de",
            [
                "Normalerweise ist es nicht gut, denselben Schlüssel zum Unterschreiben\nund Verschlüsseln zu nutzen.",
                "Dieses Verfahren sollte in speziellen\nAnwendungsgebieten benutzt werden.",
                "Gut.",
            ],
        ),
        # so does a line that ends in a comma, whatever its width
        (
            "Sie sollten die Löschung verschieben,\nBis Sie wissen, welcher Schlüssel verwendet wurde.",
            "de",
            ["Sie sollten die Löschung verschieben,\nBis Sie wissen, welcher Schlüssel verwendet wurde."],
        ),
        (
            "您应该暂缓删除它，\n直到您知道此签名使用了哪一把密钥。",
            "zh",
            ["您应该暂缓删除它，\n直到您知道此签名使用了哪一把密钥。"],
        ),
        # a heading stays a line of its own: short, in capitals, or before a numbered clause; so does a
        # form's field before a short line without a stop, and a line of blanks to sign on
        (
            "Einleitung\nDer Vertrag regelt die Lieferung von Waren an den Käufer und deren Bezahlung.",
            "de",
            ["Einleitung", "Der Vertrag regelt die Lieferung von Waren an den Käufer und deren Bezahlung."],
        ),
        (
            "ALLGEMEINE GESCHÄFTSBEDINGUNGEN DER MUSTER GMBH FÜR LIEFERUNGEN\nDie folgenden Bedingungen "
            "gelten für alle Verträge mit Kunden.",
            "de",
            [
                "ALLGEMEINE GESCHÄFTSBEDINGUNGEN DER MUSTER GMBH FÜR LIEFERUNGEN",
                "Die folgenden Bedingungen gelten für alle Verträge mit Kunden.",
            ],
        ),
        (
            "3.4 Der Empfänger gibt vertrauliche Informationen nur mit Zustimmung weiter\n3.5 Der Empfänger "
            "haftet für seine Mitarbeiter.",
            "de",
            [
                "3.4 Der Empfänger gibt vertrauliche Informationen nur mit Zustimmung weiter",
                "3.5 Der Empfänger haftet für seine Mitarbeiter.",
            ],
        ),
        (
            "Name: Max Mustermann, Hauptstraße 5, 12345 Berlin, Deutschland\nTelefon: 030 123456",
            "de",
            ["Name: Max Mustermann, Hauptstraße 5, 12345 Berlin, Deutschland", "Telefon: 030 123456"],
        ),
        (
            "Unterschrift für die Firma Muster GmbH und ihre Tochtergesellschaften\n____________ Datum ______",
            "de",
            [
                "Unterschrift für die Firma Muster GmbH und ihre Tochtergesellschaften",
                "____________ Datum ______",
            ],
        ),
        # the next line is as wide as this one with its indentation, as a page's lines are
        (
            "apt stellt eine hoch abstrahierte Befehlszeilenschnittstelle für das\n       Paketverwaltungssystem "
            "zur Verfügung. Es ist als\n       Endanwenderschnittstelle gedacht.",
            "de",
            [
                "apt stellt eine hoch abstrahierte Befehlszeilenschnittstelle für das\n       Paketverwaltungssystem "
                "zur Verfügung.",
                "Es ist als\n       Endanwenderschnittstelle gedacht.",
            ],
        ),
        # e-mail (round 76): a line that ends in a colon introduces what follows; a line of its own ends with
        # its stop, an abbreviation's too; an abbreviation's stop, then a mark, ends as the mark does
        (
            "Am 3. März 2024 um 10:15 schrieb Max Müller <max@firma.de>:\nKönnen Sie mir die Unterlagen schicken?",
            "de",
            [
                "Am 3. März 2024 um 10:15 schrieb Max Müller <max@firma.de>:",
                "Können Sie mir die Unterlagen schicken?",
            ],
        ),
        (
            "Betreff: AW: Termin am Mo.\nPasst mir gut.",
            "de",
            ["Betreff: AW: Termin am Mo.", "Passt mir gut."],
        ),
        ("Ci vediamo sab.?\nUn abbraccio", "it", ["Ci vediamo sab.?", "Un abbraccio"]),
        ("Kommst du am Mo.? Gut.", "de", ["Kommst du am Mo.?", "Gut."]),
        # a text wrapped narrow (a newspaper's or a two-column PDF's lines) wraps at three quarters of its wide
        # lines' width, here 30 columns
        (
            "Die Sitzung findet am 3. Oktober in\nBerlin statt. Alle Mitglieder sind\nherzlich eingeladen. "
            "Die Tagesordnung\nfolgt per Post.",
            "de",
            [
                "Die Sitzung findet am 3. Oktober in\nBerlin statt.",
                "Alle Mitglieder sind\nherzlich eingeladen.",
                "Die Tagesordnung\nfolgt per Post.",
            ],
        ),
        # PDF text (round 77): a word hyphenated across the break goes on; a page's number is a line of its own
        ("Es zahlt die Muster-\nVersicherung AG.", "de", ["Es zahlt die Muster-\nVersicherung AG."]),
        (
            "第 3 页，共 12 页\n本合同自2025年1月1日起生效。",
            "zh",
            ["第 3 页，共 12 页", "本合同自2025年1月1日起生效。"],
        ),
        ("3 / 12 ページ\n本契約は効力を生じます。", "ja", ["3 / 12 ページ", "本契約は効力を生じます。"]),
        # a Chinese or Japanese field narrower than wrapped lines is a line of its own
        (
            "件名：RE: 請求書 No. 2024-015\n請求書を添付いたします。",
            "ja",
            ["件名：RE: 請求書 No. 2024-015", "請求書を添付いたします。"],
        ),
        ("10:30から会議を行い\nます。", "ja", ["10:30から会議を行い\nます。"]),  # a time is no field's label
        # Chinese or Japanese on one side of the break, a word on the other; but two fields stay apart
        (
            "通常把這樣的簽章移除不會是個好點子. 事實上 GnuPG\n可能從此就不能再使用這把金鑰了.",
            "zh",
            ["通常把這樣的簽章移除不會是個好點子.", "事實上 GnuPG\n可能從此就不能再使用這把金鑰了."],
        ),
        (
            "そのため dist-upgrade\nは、パッケージを削除します。",
            "ja",
            ["そのため dist-upgrade\nは、パッケージを削除します。"],
        ),
        ("甲：株式会社ABC\n乙：山田太郎", "ja", ["甲：株式会社ABC", "乙：山田太郎"]),
        # a stray full stop after a Chinese or Japanese one belongs to it; ".NET" opens a sentence
        ("解釈することがあります。.", "ja", ["解釈することがあります。."]),
        ("これは便利です。.NETは無料です。", "ja", ["これは便利です。", ".NETは無料です。"]),
    ],
)
def test_hard_wrapped_lines(text, language, sentences):
    # the line breaks of text files, e-mail and PDFs (translated GnuPG help: "in speziellen" then
    # "Anwendungsgebiten benutzt werden")
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


@pytest.mark.parametrize(
    ("text", "language", "sentences"),
    [
        # a command opens a sentence in lowercase after a name with an inner capital or a bracket
        (
            "La salida es PostScript. man --help informa.",
            "es",
            ["La salida es PostScript.", "man --help informa."],
        ),
        (
            "Devem ser escapados (precedidos por barra invertida). man analisará $MANOPT.",
            "pt",
            ["Devem ser escapados (precedidos por barra invertida).", "man analisará $MANOPT."],
        ),
        # or after a Dutch plural or infinitive, a whole word
        (
            "Gebruik deze programma's rechtstreeks. U moet ze gebruiken. dpkg zal het merken.",
            "nl",
            ["Gebruik deze programma's rechtstreeks.", "U moet ze gebruiken.", "dpkg zal het merken."],
        ),
        # ...while after what may be an abbreviation no list holds a lowercase word goes on
        (
            "Lo comparó con los JJ.00. del 2008 en Sevilla.",
            "es",
            ["Lo comparó con los JJ.00. del 2008 en Sevilla."],
        ),
        ("Opties: airco, stoelverw. enz. Goed.", "nl", ["Opties: airco, stoelverw. enz.", "Goed."]),
    ],
)
def test_a_lowercase_word_goes_on_only_after_what_may_be_an_abbreviation(text, language, sentences):
    assert [text[a:b] for a, b in sentence_spans(text, language)] == sentences


def test_text_no_one_here_wrote_splits_as_marked_but_for_those_left_open():
    # 36 passages of translated GnuPG help and the Dutch dpkg-deb(1), hard-wrapped (30 right at first
    # reading); left open: a Dutch sentence that opens with a lowercase command after "wordt.", where a
    # full stop before a lowercase word goes on in Dutch (abbreviations no list holds end so)
    path = Path(__file__).parents[1] / "benchmarks" / "data" / "sentences" / "translated.jsonl"
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(cases) == 36 and {c["lang"] for c in cases} == set(LANGUAGES) - {"en"}
    wrong = {c["text"][:24] for c in cases if [c["text"][a:b] for a, b in sentence_spans(c["text"], c["lang"])]
             != c["sentences"]}  # fmt: skip
    assert wrong == {"Tenzij u --nocheck opgee"}
    # the second set, written after the wrap rule (27 right at first reading), and the third, written after
    # the second's rules (35)
    for name in ("translated_unseen.jsonl", "translated_third.jsonl"):
        cases = [json.loads(line) for line in path.with_name(name).read_text(encoding="utf-8").splitlines()]
        assert len(cases) == 36 and {c["lang"] for c in cases} == set(LANGUAGES) - {"en"}
        assert all(
            [c["text"][a:b] for a, b in sentence_spans(c["text"], c["lang"])] == c["sentences"] for c in cases
        )


@pytest.mark.parametrize("language", sorted(CASES))
def test_each_language_is_detected(language):
    text = " ".join([CASES[language][0]] * 2)
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Der Hauptgang war in Ordnung, aber alles andere als umwerfend.", "de"),  # common words
        ("¿Vienes mañana?", "es"),  # too few words: the letters decide
        ("Não sei.", "pt"),
        ("Je ne sais pas, mais il faut être là.", "fr"),
        ("Ma è già stato qui.", "it"),
        ("Ik weet het niet, maar hij wel.", "nl"),
        ("Dr. Müller came.", "en"),  # one letter decides nothing
        # Dutch "of" (or) is no English without "the": the vote decides, where the English check did
        ("Wil je koffie of thee, of water, of sap of melk? Ik weet het niet, maar het is goed.", "nl"),
        ("Bread and butter and jam and cheese of course and milk.", "en"),
    ],
)
def test_a_short_text_is_told_by_its_common_words_and_then_its_letters(text, language):
    assert detect_language(text, guess=False) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # terse texts with no common word: letter trigrams guess (the hand rounds' ads and listings)
        ("Verkaufe Fahrrad, 28 Zoll, VB 150 €. Nur Abholung.", "de"),
        ("Wie geht es dir am 3. Oktober? Gut.", "de"),
        ("Appartement lumineux, cuisine équipée. Libre de suite.", "fr"),
        ("Alquilo piso luminoso, cocina equipada. Disponible ya.", "es"),
        ("Villa con giardino, box auto. Libera subito.", "it"),
        ("Casa com 3 quartos, garagem. Aceita financiamento.", "pt"),
        ("Woning met tuin, garage. Direct beschikbaar.", "nl"),
        ("Great food, friendly staff!", "en"),
    ],
)
def test_a_text_no_common_word_decides_is_guessed_by_its_letter_trigrams(text, language):
    assert detect_language(text, default=None, guess=False) is None
    assert detect_language(text, default=None) == language


def test_a_guess_needs_three_counted_trigrams_and_a_clear_lead(monkeypatch):
    assert detect_language("Ok.", default=None) is None  # too few trigrams: the default
    assert detect_language("123 456", default=None) is None  # no letters at all
    text = "Verkaufe Fahrrad, 28 Zoll, VB 150 €. Nur Abholung."
    assert detect_language(text, default=None) == "de"
    monkeypatch.setattr(language_module, "GUESS_MARGIN", 5.0)  # no language leads by 5 nats a trigram
    assert detect_language(text, default=None) is None
    monkeypatch.undo()
    # a guess can be wrong: a German name in a short English text reads as French, and a Spanish ad
    # whose words are Italian ones too ("con", "piso", "terraza") as Italian
    assert detect_language("Dr. Müller came.") == "fr"
    assert detect_language("Ático con terraza, 2.º piso sin ascensor. Disponible.") == "it"
    # a corpus lends its language to documents that told none, and a guess is no telling
    corpus = Corpus((Document("a", "Villa con giardino, box auto."),
                     *(Document(f"d{i}", "Der Hund und die Katze sind nicht hier.") for i in range(3))))  # fmt: skip
    assert with_corpus_language(corpus)["a"].metadata["language"] == "de"


@pytest.mark.parametrize(
    ("text", "language", "voted"),
    [
        # a close vote of shared words ("la", "de", "un", "que"): the letters of the text decide it
        ("La placa la forman cuatro plafones.", "es", "fr"),
        ("Nadie sabía nada, me enviaban de un sitio a otro hasta que me harté.", "es", "fr"),
        ("Les transactions se font essentiellement en espèces.", "fr", "es"),
        # a language a vote behind the leaders is among those the letters choose from: French 1 ("de"),
        # Spanish and Dutch 2 ("de", "en")
        (
            "Contact presse : Mme Sophie Martin, tél. : 01 23 45 67 89. À propos de XYZ : fondée en 1998.",
            "fr",
            "es",
        ),
    ],
)
def test_a_close_vote_is_decided_by_letter_trigrams(monkeypatch, text, language, voted):
    assert detect_language(text) == language
    guessed = language_module._guessed
    monkeypatch.setattr(language_module, "_guessed", lambda t, among=None: among is None and guessed(t))
    assert detect_language(text) == voted  # the vote alone


def test_the_shipped_trigram_table_is_what_its_script_builds(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "benchmarks"))
    script = importlib.import_module("language_trigrams")
    shipped = json.loads(TRIGRAM_TABLE.read_text(encoding="utf-8"))
    assert shipped == script.build()
    assert set(shipped["languages"]) == set(LANGUAGES) - {"ru", "zh", "ja"}


def test_the_rest_of_the_sample_decides_when_the_first_words_leave_the_vote_close():
    names = "Lisboa 2019, Porto 2020, Coimbra 2021, Braga 2022, Faro 2023, Évora 2024, Viseu 2025. " * 3
    assert len(names) > 200  # the first words have no function word of any language
    assert detect_language(names + "Não há dados para o ano, e os números do censo são de 2010.") == "pt"
    assert detect_language(names, default=None, guess=False) is None


def test_the_first_words_decide_when_they_lead_by_two_votes():
    # German 5 ("Der und die sind im"), Dutch 3 ("die het is") in the first 150 characters; Dutch after them
    first = "Der Hund und die Katze sind im Garten, het is mooi daar. Lisboa, Porto, Coimbra, Braga, Faro, "
    first += "Évora, Viseu, Leiria, Aveiro, Sintra, Tavira, Lagos. "
    dutch = "Het huis van de man is niet groot en het is ook oud. " * 12
    assert len(first) > 146 and detect_language(dutch) == "nl"
    assert detect_language(first + dutch) == "de"
    assert detect_language(first.replace("Katze sind", "Katze") + dutch) == "nl"  # a lead of one: all is read


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Привет, мир. " * 3 + "abc " * 4, "ru"),  # 30 Cyrillic letters of 49 characters
        ("Привет, мир. " + "abcd efgh ijkl " * 3, "ru"),  # 9 of 57: enough only where no words decide
        ("Мир. " + "abcd efgh ijkl " * 3, "en"),  # 3 of 50: too few even then
        ("中文文本" * 3 + " and more words here to pad", "zh"),  # 12 Han of 39
        # where no Latin-script language's words decide, half the share does: code amid Chinese (11 Han
        # of 63), but not amid German words ("die", "und", "ist", "nicht"), whatever its Han
        ("运行 npm install 后，执行 node app.js。如有问题，请联系 support@example.cn。", "zh"),
        ("Die Firma 华为技术有限公司 hat ihren Sitz in Shenzhen und ist nicht klein.", "de"),
        ("これは日本語の文です。" * 2, "ja"),  # kana among the Han
        ("L’État a dit « non » à l’accord, mais la ville n’est pas d’accord.", "fr"),  # not Latin-1
    ],
)
def test_a_script_decides_when_its_letters_fill_the_sample(text, language):
    assert detect_language(text, guess=False) == language  # the script alone; no letter trigrams


def test_kana_beyond_a_twentieth_of_the_cjk_letters_make_japanese_and_cjk_punctuation_is_not_kana():
    # CJK punctuation ("。", "、", "「」": U+3000-303F) begins with the byte kana do (E3): it must not count
    han = "中文文本资料" * 8  # 48 Han
    punctuation = "。、「」" * 10
    assert detect_language(han + punctuation) == "zh"
    assert detect_language(han + punctuation + "の" * 2) == "zh"  # 2 kana of 50 CJK letters: 4%
    assert detect_language(han + punctuation + "の" * 3) == "ja"  # 3 of 51: 5.9%
    assert detect_language(han + "カタ" * 2) == "ja"  # katakana (U+30A0-30FF) count as kana too


def test_french_documents_of_a_few_hundred_bytes_are_read_as_french():
    # UD French GSD cut into documents of 600+ bytes: two were read as Spanish while "de" voted only
    # for Spanish, Portuguese and Dutch
    path = Path(__file__).parents[1] / "benchmarks" / "data" / "sentences" / "ud" / "fr-gsd-test.text"
    sentences = [
        line[9:].rstrip("\n") for line in path.open(encoding="utf-8") if line.startswith("# text = ")
    ]
    documents, current = [], ""
    for sentence in sentences:
        current = f"{current} {sentence}" if current else sentence
        if len(current.encode()) >= 600:
            documents.append(current)
            current = ""
    assert len(documents) == 75
    assert {detect_language(d) for d in documents} == {"fr"}


def test_common_words_vote_with_the_stop_or_comma_after_them():
    # "uit." and "ook." are Dutch words too: before, only "de" voted and the text fell to English
    assert detect_language("'s Avonds gaan we uit. Dhr. de Vries komt ook.") == "nl"
    assert detect_language("Er kommt nicht. Sie auch nicht.") == "de"


def test_common_words_vote_capitalised_or_in_capitals_as_lowercase():
    assert detect_language("DER HUND UND DIE KATZE SIND NICHT HIER, ABER DAS IST AUCH GUT.") == "de"
    assert detect_language("Die Katze. Der Hund. Das Haus. Und nicht mehr.") == "de"
    # English text with curly quotes is not ASCII; "The" as written counts for it
    assert detect_language("“The cat”. The dog and the bird. The end of it.") == "en"


def test_english_and_undecidable_text_stay_english():
    assert detect_language("The cat sat on the mat and looked out of the window.") == "en"
    assert detect_language("") == "en" and detect_language("12 345 6789") == "en"
    assert set(CASES) | {"en"} == set(LANGUAGES)


def test_every_chunk_records_its_documents_language():
    text, _ = CASES["de"]
    chunks = make_chunker("sentence", size=60, overlap=0).chunk_text(text)
    assert chunks and {c.metadata["lang"] for c in chunks} == {"de"}
    assert all(text[c.start : c.end] == c.text for c in chunks)


def test_a_dataset_can_name_its_language_and_a_wrong_name_is_refused(tmp_path):
    folder = tmp_path / "d"
    shutil.copytree(TINY, folder)
    (folder / "dataset.json").write_text(json.dumps({"language": "nl"}))
    dataset = load_dataset(folder)
    chunks = make_chunker("sentence", size=200, overlap=0).chunk(dataset.corpus.documents[0])
    assert {c.metadata["lang"] for c in chunks} == {"nl"}  # named, not detected (the text is English)
    from vera_lab.sweep.data import Sampling, data_record

    record = data_record(folder, Sampling())  # what a run's manifest and report say
    assert record["languages"] == {"nl": len(dataset.corpus)} and record["languages_named"]
    (folder / "dataset.json").write_text(json.dumps({"language": "klingon"}))
    with pytest.raises(DatasetError, match="language 'klingon': one of auto, en, de"):
        load_dataset(folder)


def test_sentence_spans_refuses_a_language_it_has_no_rules_for():
    assert sentence_spans("Hi. There.", "auto") == sentence_spans("Hi. There.") == [(0, 3), (4, 10)]
    with pytest.raises(ValueError, match="language='klingon': one of auto, en, de"):
        sentence_spans("Hi. There.", "klingon")  # not English rules in silence


def test_a_document_can_name_its_language_over_its_datasets_and_a_wrong_one_is_refused_by_line(tmp_path):
    folder = tmp_path / "d"
    shutil.copytree(TINY, folder)
    records = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    records[0]["metadata"] = {"language": "de"}
    records[1]["metadata"] = {"language": "auto"}  # detect this one
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "dataset.json").write_text(json.dumps({"language": "fr"}))
    corpus = load_dataset(folder).corpus
    chunker = make_chunker("sentence", size=200, overlap=0)
    languages = [{c.metadata["lang"] for c in chunker.chunk(d)} for d in corpus]
    assert languages[:3] == [{"de"}, {"en"}, {"fr"}]  # its own, detected, the dataset's
    records[2]["metadata"] = {"language": "klingon"}
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(DatasetError, match=r"corpus.jsonl:3: metadata.language 'klingon': one of auto, en"):
        load_dataset(folder)


def test_a_chunker_can_name_the_language_and_every_chunk_records_it(tmp_path):
    folder = tmp_path / "d"
    shutil.copytree(TINY, folder)
    (folder / "dataset.json").write_text(json.dumps({"language": "nl"}))
    document = load_dataset(folder).corpus.documents[0]
    chunks = make_chunker("sentence", size=200, overlap=0, lang="de").chunk(document)
    assert {c.metadata["lang"] for c in chunks} == {"de"}  # the chunker's, over the dataset's
    text = "The meeting is on 3. Oktober in Berlin. Then we go home."
    pieces = {lang: [c.text for c in make_chunker("sentence", size=30, overlap=0, min_size=1, lang=lang).chunk_text(text)]
              for lang in (None, "de")}  # fmt: skip
    assert pieces[None][0] == "The meeting is on 3."  # detected English: "3." ends a sentence
    assert pieces["de"] == ["The meeting is on 3. Oktober in Berlin.", "Then we go home."]  # a German ordinal
    german = make_chunker("sentence", size=30, overlap=0, min_size=1, lang="de")
    assert [text[a:b] for a, b in german.split(text)[0]] == pieces["de"]  # split alone honours it too


def test_an_unset_chunker_language_keeps_old_ids_and_a_wrong_one_is_refused_by_name():
    from vera_lab.sweep.config import SweepConfigError, parse_config

    unset, auto = make_chunker("sentence", size=300), make_chunker("sentence", size=300, lang="auto")
    assert "lang" not in unset.params() and unset == auto and unset.config_id == auto.config_id
    assert make_chunker("sentence", size=300, lang="fr").config_id != unset.config_id
    grid = [{"strategy": "sentence", "size": 300, "overlap": 0, "lang": ["de", "auto"]}]
    config = parse_config({"name": "t", "dataset": str(TINY), "grid": grid})
    assert [dict(p.chunker).get("lang") for p in config.points()] == ["de", None]
    with pytest.raises(SweepConfigError, match=r"grid point .*lang='xx'.*: lang 'xx': one of auto, en, de"):
        parse_config({"name": "t", "dataset": str(TINY), "grid": [{**grid[0], "lang": "xx"}]})


def test_sizes_in_sentences_are_counted_in_each_documents_language(tmp_path):
    from vera_lab.sweep.config import Configuration
    from vera_lab.sweep.validity import validity_warnings

    folder = tmp_path / "d"
    folder.mkdir()
    text = "The meeting is on 3. Oktober in Berlin."  # one sentence in German, two in English
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"doc_id": f"d{i}", "text": text}) + "\n" for i in range(3))
    )
    claim = {
        "claim": "They meet in Berlin.",
        "label": "supported",
        "evidence": [{"doc_id": "d0", "start": 0, "end": 39}],
    }
    (folder / "claims.jsonl").write_text(json.dumps({"claim_id": "c1", **claim}) + "\n")
    point = Configuration.create({"strategy": "sentence", "size": 1, "unit": "sentences", "overlap": 0})
    codes = {}
    for language in ("en", "de"):
        (folder / "dataset.json").write_text(json.dumps({"language": language}))
        codes[language] = {w.code for w in validity_warnings(load_dataset(folder), [point])}
    # in English two sentences: the evidence outgrows a 1-sentence chunk; in German one: each document is one
    assert codes == {"en": {"long_evidence"}, "de": {"short_documents"}}


MULTILINGUAL = Path(__file__).parent / "data" / "multilingual"


def test_a_folder_in_four_languages_goes_from_init_to_a_report(tmp_path, monkeypatch, capsys):
    from vera_lab.cli import main
    from vera_lab.report import load_run

    docs = tmp_path / "docs"
    shutil.copytree(MULTILINGUAL / "docs", docs)
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")  # fast here; minilm-int8 for users
    assert main(["init", str(docs), str(MULTILINGUAL / "claims.csv"), "--minutes", "1",
                 "--cache-dir", str(tmp_path / "c"), "--quiet"]) == 0  # fmt: skip
    assert "(markdown 1, text 3; languages detected: de 1, es 1, fr 1, ja 1)" in capsys.readouterr().out
    sweep = tmp_path / "docs-dataset" / "sweep.yaml"
    assert main(["sweep", str(sweep), "--results-dir", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"),
                 "--quiet"]) == 0  # fmt: skip
    assert "the corpus mixes scripts (Latin 3, Chinese/Japanese 1 documents" in capsys.readouterr().err
    run = load_run(tmp_path / "r" / "docs-dataset")
    assert [v["code"] for v in run.manifest["validity"]].count("mixed_scripts") == 1
    assert "config_id" in run.recommendation and (tmp_path / "r" / "docs-dataset" / "report.html").exists()
    assert run.manifest["data"]["languages"] == {"de": 1, "es": 1, "fr": 1, "ja": 1}
    report = (tmp_path / "r" / "docs-dataset" / "report.html").read_text(encoding="utf-8")
    assert "4 documents (de 1, es 1, fr 1, ja 1), 10 claims" in report  # the languages read in
    dataset = run.dataset()
    chunker = make_chunker("sentence", size=120, overlap=0)
    languages = {d.doc_id: {c.metadata["lang"] for c in chunker.chunk(d)} for d in dataset.corpus}
    assert languages == {"de-mietvertrag.md": {"de"}, "fr-reglement.txt": {"fr"}, "es-garantia.txt": {"es"},
                         "ja-kiyaku.txt": {"ja"}}  # fmt: skip
    german = dataset.corpus["de-mietvertrag.md"].text
    sentences = [german[a:b] for a, b in sentence_spans(german)]
    assert "Sie ist bis zum 3. Werktag eines Monats zu zahlen, bzw. am nächsten Bankarbeitstag." in sentences


def test_init_lang_names_the_folders_language_in_dataset_json_and_refuses_to_rename_it_unasked(
    tmp_path, monkeypatch, capsys
):
    from vera_lab.cli import main

    docs = tmp_path / "docs"
    shutil.copytree(MULTILINGUAL / "docs", docs)
    monkeypatch.setattr("vera_lab.sweep.template.EMBEDDER", "hashing")
    argv = ["init", str(docs), str(MULTILINGUAL / "claims.csv"), "--minutes", "1", "--cache-dir",
            str(tmp_path / "c"), "--quiet"]  # fmt: skip
    assert main([*argv, "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "language named: de (detected: de 1, es 1, fr 1, ja 1)" in out  # a stray language stands out
    dataset = tmp_path / "docs-dataset"
    assert json.loads((dataset / "dataset.json").read_text()) == {"language": "de"}
    chunker = make_chunker("sentence", size=200, overlap=0)
    assert {c.metadata["lang"] for d in load_dataset(dataset).corpus for c in chunker.chunk(d)} == {"de"}
    before = {p.name: p.read_bytes() for p in dataset.iterdir() if p.is_file()}
    assert main([*argv, "--lang", "fr"]) == 2  # another language: only when told
    assert "dataset.json names the language 'de': pass --force" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in dataset.iterdir() if p.is_file()} == before  # nothing written
    assert main([*argv, "--lang", "fr", "--force"]) == 0 and main([*argv, "--lang", "auto"]) == 0
    assert json.loads((dataset / "dataset.json").read_text()) == {"language": "fr"}  # auto names none


def test_ingest_lang_adds_the_language_to_a_users_dataset_json_only_with_force(tmp_path, capsys):
    from vera_lab.cli import main

    dataset = tmp_path / "ds"
    dataset.mkdir()
    mine = '{"scope": "cited", "source": "my notes"}\n'
    (dataset / "dataset.json").write_text(mine)
    argv = ["ingest", str(MULTILINGUAL / "docs"), "--out", str(dataset), "--quiet", "--lang", "es"]
    assert main(argv) == 2
    assert (
        "dataset.json was not written by vera-lab (it may be your own): pass --force"
        in capsys.readouterr().err
    )
    assert (dataset / "dataset.json").read_text() == mine and not (dataset / "corpus.jsonl").exists()
    assert main([*argv, "--force"]) == 0
    assert json.loads((dataset / "dataset.json").read_text()) == {"scope": "cited", "source": "my notes",
                                                                  "language": "es"}  # fmt: skip


def test_short_documents_take_the_language_most_of_their_corpus_is_written_in(tmp_path):
    from vera_lab.data.dataset import with_corpus_language
    from vera_lab.types import Corpus, Document

    german = [
        "Die Firma wurde im Jahr 1990 gegründet und hat ihren Sitz in der Stadt, die auch für die Messe bekannt ist.",
        "Der Vertrag ist nicht übertragbar und gilt für die Dauer von drei Jahren mit einer Verlängerung.",
        "Treffen am 3. Oktober in Berlin. Bitte pünktlich.",  # too short to tell: reads as English
    ]  # fmt: skip
    corpus = with_corpus_language(Corpus(tuple(Document(f"d{i}", t) for i, t in enumerate(german))))
    assert [d.metadata.get("language") for d in corpus] == [
        None,
        None,
        "de",
    ]  # only the undecided one is lent
    chunks = make_chunker("sentence", size=40, overlap=0).chunk(corpus["d2"])
    assert [c.text for c in chunks] == ["Treffen am 3. Oktober in Berlin.", "Bitte pünktlich."]
    assert all(c.metadata["lang"] == "de" for c in chunks)
    english = Corpus(
        (Document("e", "The cat sat on the mat and the dog sat on the rug."), Document("s", "Am 3."))
    )
    assert with_corpus_language(english) == english  # English is what an undecided document gets anyway
    split = Corpus((Document("a", german[0]), Document("b", "Le contrat est valable pour une durée de trois ans et la société."),
                    Document("c", german[2])))  # fmt: skip
    assert with_corpus_language(split) == split  # no clear majority: nothing is lent
    folder = tmp_path / "faq"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"doc_id": f"d{i}", "text": t}, ensure_ascii=False) + "\n"
            for i, t in enumerate(german)
        )
    )
    (folder / "claims.jsonl").write_text(
        '{"claim_id": "c", "claim": "x", "label": "unsupported", "cited_doc_ids": ["d2"]}\n'
    )
    assert load_dataset(folder).corpus["d2"].metadata["language"] == "de"  # a dataset loads that way
