"""Source of sentence_gold.jsonl: hand-written cases. Run to regenerate the JSONL."""

import json

S = " "  # default separator between gold sentences
cases = []


def add(cat, *sentences, sep=S):
    cases.append({"category": cat, "text": sep.join(sentences), "sentences": list(sentences)})


# --- plain
add("plain", "The cat sat on the mat.", "The dog barked.")
add("plain", "Is this working?", "Yes, it is!", "Great.")
add("plain", "One sentence only.")
add("plain", "No final punctuation here")
add("plain", "Short.", "Very short.", "Tiny.")
add("plain", "We measured recall.", "It rose by ten points.", "Precision fell.")
add("plain", "What?!", "You cannot be serious.")
add("plain", "It works!!", "Really.")
add("plain", "Stop.", "Go.")
add("plain", "The results were clear.", "All models improved.", "None regressed.")
# --- titles and honorifics
add("abbrev", "Dr. Smith arrived late.", "He apologised.")
add("abbrev", "Mr. and Mrs. Jones live here.", "They moved in May.")
add("abbrev", "Prof. Lee and Dr. Kim wrote the paper.", "It won an award.")
add("abbrev", "Ms. Patel met Sen. Warren yesterday.", "The meeting went well.")
add("abbrev", "The patient saw Dr. House.", "Then she went home.")
add("abbrev", "St. Louis is in Missouri.", "It is on the Mississippi.")
add("abbrev", "Gen. Grant won the battle.", "Lt. Col. Adams was wounded.")
add("abbrev", "Martin Luther King Jr. spoke in Washington.", "Millions listened.")
add("abbrev", "Rev. Green gave the sermon.", "The choir sang.")
add("abbrev", "Capt. Hook lost a hand.", "A crocodile ate it.")
# --- e.g., i.e., etc., vs., cf., et al.
add("abbrev", "Use a fruit, e.g. an apple, as a snack.", "It is healthy.")
add("abbrev", "Some tools, i.e. hammers and saws, were missing.", "We bought more.")
add("abbrev", "Smith et al. found a strong effect.", "Others disagreed.")
add("abbrev", "As shown by Smith et al. (2020), the effect is robust.", "We confirm it.")
add("abbrev", "Compare the two designs (cf. Fig. 3).", "The second is simpler.")
add("abbrev", "It was Spain vs. Portugal in the final.", "Spain won.")
add("abbrev", "Bring pens, paper, etc. to the exam.", "Phones are not allowed.")
add("abbrev", "We sell apples, pears, etc.", "Our prices are low.")
add("abbrev", "See Fig. 2 for details.", "The trend is linear.")
add("abbrev", "The dose was given at approx. 10 mg per day.", "No side effects occurred.")
add("abbrev", "Refer to Eq. 4 and Eq. 5.", "Both are linear.")
add("abbrev", "This is discussed in Vol. 2, pp. 10-12.", "The argument is long.")
add("abbrev", "Apple Inc. reported record profits.", "Shares rose.")
add("abbrev", "He works for Acme Inc.", "The company makes anvils.")
add("abbrev", "The results (see Sec. 4) are mixed.", "We discuss why.")
add("abbrev", "Jones et al. reported similar results in mice.", "Humans were not tested.")
add("abbrev", "The meeting is on Jan. 5 at noon.", "Please be on time.")
add("abbrev", "Item No. 7 was recalled.", "Customers were refunded.")
add("abbrev", "Several authors, e.g. Brown and Green, agree.", "We do too.")
add("abbrev", "The drug, i.e. aspirin, reduced pain.", "The effect lasted hours.")
# --- initials and initialisms
add("initials", "J. K. Rowling wrote the books.", "They sold well.")
add("initials", "The paper by A. B. Smith is cited often.", "It is short.")
add("initials", "George W. Bush was president.", "He served two terms.")
add("initials", "The U.S. Army is large.", "It has many bases.")
add("initials", "She moved to the U.S. in 2010.", "She loves it there.")
add("initials", "He lived in the U.S. The weather suited him.")  # placeholder, fixed below
cases.pop()
add("initials", "He lived in the U.S.", "The weather suited him.")
add("initials", "The U.K. government announced a plan.", "Critics were sceptical.")
add("initials", "She earned a Ph.D. in physics.", "Then she taught.")
add("initials", "The meeting starts at 9 a.m. sharp.", "Do not be late.")
add("initials", "E. coli was found in the samples.", "The lake was closed.")
add("initials", "Mix with H. pylori cultures.", "Incubate overnight.")
add("initials", "T. S. Eliot wrote poems.", "Many are famous.")
add("initials", "The U.N. met today.", "It passed a resolution.")
add("initials", "F. Scott Fitzgerald wrote novels.", "He lived in Paris.")
# --- decimals, versions, numbers
add("numbers", "The value is 3.14 exactly.", "It is pi.")
add("numbers", "Version 2.3.1 fixed the bug.", "Upgrade now.")
add("numbers", "Python 3.11 is fast.", "Use it.")
add("numbers", "The price rose by 4.5% in 2023.", "Analysts expected 3.2%.")
add("numbers", "Set v1.2 as the default.", "Then restart.")
add("numbers", "The sample mean was 0.75 (SD 0.12).", "The effect was large.")
add("numbers", "It costs $1.50 per item.", "That is cheap.")
add("numbers", "The interval was 95% CI 1.2 to 3.4.", "It excludes one.")
add("numbers", "Section 4.2.1 describes the method.", "Section 5 reports results.")
add("numbers", "We used 1,000.5 units.", "That was enough.")
add("numbers", "The temperature was -3.5 degrees.", "Water froze.")
add("numbers", "Release 10.0.19041.1 is stable.", "Install it.")
add("numbers", "There were 12 participants.", "Four dropped out.")
add("numbers", "The p-value was 0.001.", "The result is significant.")
add("numbers", "In 2020 the rate was 2.1.", "In 2021 it was 2.4.")
# --- ellipses
add("ellipsis", "Wait... what did you say?", "I did not hear.")
add("ellipsis", "He paused...", "Then he left.")
add("ellipsis", "I wonder … maybe tomorrow.", "We will see.")
add("ellipsis", "And so it ended…", "The hall emptied.")
add("ellipsis", "Well... it depends.", "Ask again later.")
add("ellipsis", "The list goes on...", "We stop here.")
add("ellipsis", "She said nothing... absolutely nothing.", "He waited.")
add("ellipsis", "Numbers 1, 2, 3... and so on.", "You get the idea.")
# --- quotes and brackets after the stop
add("quotes", 'He said "Go home."', "Then he left.")
add("quotes", "She asked, 'Are you sure?'", "He nodded.")
add("quotes", "“This is it,” she said.", "Nobody answered.")
add("quotes", "“It is over.”", "The room fell silent.")
add("quotes", "The sign read (in red): “No entry.”", "We turned back.")
add("quotes", 'He shouted "Stop!" and ran.', "Nobody followed.")
add("quotes", '"Why?" she asked.', '"Because," he said.')
add("quotes", "(This was expected.)", "The rest was not.")
add("quotes", "The result was clear (see the table.)", "We moved on.")
add("quotes", "[Note: data were cleaned.]", "Analysis followed.")
add("quotes", "He whispered: 'Run.'", "They ran.")
add("quotes", "«C'est fini.»", "Personne ne répondit.")
add("quotes", 'She wrote: "The end."', '"Or is it?" he replied.')
add("quotes", "It was “good enough.”", "We shipped it.")
add("quotes", "The answer (42) surprised us.", "Nobody expected it.")
# --- lists
add("lists", "1. Open the box.", "2. Remove the device.", "3. Plug it in.", sep="\n")
add("lists", "Steps:", "1. Preheat the oven", "2. Mix the flour", sep="\n")
add("lists", "- apples", "- pears", "- plums", sep="\n")
add("lists", "Shopping list:", "* Milk", "* Bread", sep="\n")
add("lists", "a) First option.", "b) Second option.", sep="\n")
add("lists", "• Fast", "• Cheap", "• Good", sep="\n")
add("lists", "1) Read the paper.", "2) Write a summary.", sep="\n")
add("lists", "Requirements:", "- Python 3.11", "- 2 GB RAM", sep="\n")
add("lists", "The steps are:", "1. Download.", "2. Install.", "3. Run.", sep="\n")
add("lists", "Note the following.", "10. Tenth item here.", sep="\n")
# --- URLs and e-mail addresses
add("urls", "Visit www.example.com for details.", "It is free.")
add("urls", "See https://example.org/a/b.html today.", "The page is long.")
add("urls", "Write to jane.doe@example.com with questions.", "She replies fast.")
add("urls", "The site is example.com.", "It loads quickly.")
add("urls", "Download from ftp://files.example.net/pub/v1.2.tar.gz now.", "Then unpack it.")
add("urls", "Contact support@vera.lab.", "We answer daily.")
add("urls", "Read docs.python.org/3/library/re.html first.", "Then experiment.")
add("urls", "The API lives at http://127.0.0.1:11434/api/embed locally.", "Start the server first.")
add("urls", "Email a.b.c@d.e.org or call us.", "We are open.")
add("urls", "Go to github.com/org/repo.", "Star it.")
# --- newlines without punctuation
add("newlines", "Introduction", "This paper studies chunking.", sep="\n")
add("newlines", "Results", "Recall improved.", sep="\n")
add("newlines", "A heading without a stop", "The body begins here.", sep="\n\n")
add("newlines", "Title line", "Author line", "Body text starts here.", sep="\n")
add("newlines", "First paragraph ends here", "Second paragraph starts here", sep="\n\n")
add("newlines", "Chapter 1", "It was a dark night.", sep="\n")
add("newlines", "Abstract", "We propose a method.", sep="\r\n")
add("newlines", "Name: Alice", "Age: 30", sep="\n")
add("newlines", "Key findings", "", sep="\n")
cases.pop()
add("newlines", "Summary", "Everything worked.", sep="\n   \n")
add("newlines", "Q: What is it", "A: A tool", sep="\n")
add("newlines", "BACKGROUND", "Obesity is common.", sep="\n")
cases.append(
    {
        "category": "newlines",
        "text": "This line wraps\nin the middle of a sentence.",
        "sentences": ["This line wraps\nin the middle of a sentence."],
    }
)
cases.append(
    {
        "category": "newlines",
        "text": "The quick brown fox\njumps over the lazy dog.\nThe end.",
        "sentences": ["The quick brown fox\njumps over the lazy dog.", "The end."],
    }
)
# --- mixed, harder
add("mixed", "Dr. J. Smith, Ph.D., joined the U.S. team in 2019.", "He leads it now.")
add("mixed", "The model (v2.1) beat the baseline by 3.4 points, e.g. on SciFact.", "Details follow.")
add("mixed", "Is it 3.5 or 3.6?", "Nobody knows.")
add("mixed", 'She said "Wait..." and left.', "We waited.")
add("mixed", "See https://x.io. Then log in.")  # placeholder
cases.pop()
add("mixed", "See https://x.io.", "Then log in.")
add("mixed", "In the U.S. and the U.K. prices rose.", "Wages did not.")
add("mixed", "Mr. Brown (b. 1950) retired.", "He was 70.")
add("mixed", "Results: 95% CI 0.8-1.2; p = 0.04.", "Not robust.")
add("mixed", "The ratio was 1:2.", "It doubled later.")
add("mixed", "Sales grew 10% vs. last year.", "Costs fell.")
add("mixed", "They arrived at 5 p.m.", "Dinner was ready.")
add("mixed", "Prof. A. Turing (1912-1954) founded the field.", "His work endures.")
add("mixed", "Use --size 512 for tokens.", "Use --overlap 0.2 for a ratio.")
add("mixed", "Call f(x) = x.mean() first.", "Then plot it.")
add("mixed", "The file is report.final.pdf.", "Open it.")
add("mixed", "OK.", "Next.")
add("mixed", "I.", "II.")
cases.pop()
add("mixed", "Why not?", "Because.")
add("mixed", "He scored 9/10!", "Impressive.")
add("mixed", "Temperatures hit 40°C.", "Schools closed.")
add("mixed", "The café opened.", "Résumés poured in.")
add("mixed", "Ünïcödé works.", "Émojis too 😀.", "Fine.")
add("mixed", "See the appendix (Table S1).", "It lists all genes.")
add("mixed", "The mice were 8 wk old.", "They were healthy.")
add("mixed", "A total of 1.2 million people were surveyed.", "Most agreed.")
add("mixed", "We thank Dr. Ng.", "All errors are ours.")
add("mixed", "The gene is BRCA1.", "Mutations are rare.")
add("mixed", "It happened in 1999.", "Nobody remembers.")
add("mixed", "They said no.", "We said yes.")
# --- CJK
add("cjk", "今日は晴れです。", "明日は雨です。", sep="")
add("cjk", "你好吗？", "我很好！", sep="")
add("cjk", "这是第一句。", "这是第二句。", sep="")

with open("sentence_gold.jsonl", "w", encoding="utf-8") as out:
    for case in cases:
        assert case["text"].count(case["sentences"][0]) >= 1
        out.write(json.dumps(case, ensure_ascii=False) + "\n")
print(len(cases), "cases")
