"""The injection rule's phrases in the common other languages (issue 12): French, German,
Spanish, Italian, Portuguese, Russian, Chinese, Japanese, Korean. Written for the normalised view
(accents stripped, so French and German patterns are written without them); a word of Cyrillic
letters only stays Cyrillic, and scripts without spaces gate on substrings (`subs`).
Data for `_injection_phrases` (see `_injection_match` for how a phrase is written).
"""

# ruff: noqa: RUF001  (the phrases are in other scripts on purpose)
from __future__ import annotations

from agents.reviewers.validator._injection_match import Phrase
from agents.reviewers.validator._injection_match import phrase as _p

LANGUAGES: tuple[Phrase, ...] = (
    # --- French ----------------------------------------------------------------------------------
    _p(
        "override",
        "French",
        "instructions instruction consignes consigne regles directives directive criteres "
        "indications",
        r"(?:ignore[rz]?|oublie[rz]?|neglige[rz]?|ne\s+tene[zs]\s+pas\s+compte\s+de|ne\s+tiens\s+"
        r"pas\s+compte\s+de|faites\s+abstraction\s+de|fais\s+abstraction\s+de)\s+(?:toutes\s+|"
        r"tous\s+)?(?:les|des|vos|tes|ces|cette|la)\s+(?:instructions?|consignes?|regles|"
        r"directives?|criteres|indications)",
        "ignorez ignorer ignore oubliez oublier oublie negligez negliger tenez tiens abstraction",
    ),
    _p(
        "score",
        "French",
        "note score evaluation",
        r"(?:donne[rz]?|attribue[rz]?|accorde[rz]?|mettez|mets)(?![a-z])[^.\n]{0,60}?(?<![a-z])"
        r"(?:note|score|evaluation)\s+(?:de\s+)?(?:100|10\s*/\s*10|20\s*/\s*20|maximale|parfaite|"
        r"maximum)(?![a-z0-9])",
        "donne donnez donner attribue attribuez attribuer accorde accordez accorder mettez mets",
        "100 10 20 maximale parfaite maximum",
    ),
    _p(
        "approve",
        "French",
        "approuve approuvez approuver valide validez valider accepte acceptez accepter",
        r"(?:approuve[rz]?|valide[rz]?|accepte[rz]?)\s+(?:cet|cette|ce)\s+(?:article|texte|"
        r"brouillon"
        r"|billet|contenu)(?![a-z])",
        "cet cette ce",
    ),
    _p(
        "persona",
        "French",
        "etes es",
        r"(?:vous\s+etes|tu\s+es)\s+(?:maintenant\s+|desormais\s+)?(?:un|une)\s+(?:evaluat(?:eur|"
        r"rice)|correct(?:eur|rice)|relect(?:eur|rice)|critique|juge|examinat(?:eur|rice))\s+"
        r"(?:indulgent|clement|genereu[xs]|bienveillant)",
        "indulgent indulgente clement clemente genereux genereuse bienveillant bienveillante",
    ),
    _p(
        "address",
        "French",
        "note message consigne",
        r"(?:note|message|consigne)\s+(?:a|pour)\s+(?:l'|la\s+|le\s+)?(?:ia|intelligence "
        r"artificielle|modele|evaluateur|relecteur|correcteur)(?![a-z])",
        "ia l'ia intelligence modele evaluateur relecteur correcteur",
    ),
    _p(
        "suppress",
        "French",
        "signalez signales signale",
        r"ne\s+signale[zs]?\s+(?:aucun|aucune)\s+(?:probleme|erreur|defaut)",
        "aucun aucune",
    ),
    # --- German ----------------------------------------------------------------------------------
    _p(
        "override",
        "German",
        "anweisungen instruktionen regeln vorgaben richtlinien befehle kriterien",
        r"(?:ignoriere|ignorieren\s+sie|ignoriert|vergiss|vergessen\s+sie|missachte|missachten\s+"
        r"sie|uberspringe|ubergehe)\s+(?:bitte\s+)?(?:(?:alle|samtliche|die|deine|ihre)\s+){0,2}"
        r"(?:(?:vorherigen|bisherigen|obigen|vorigen|fruheren|vorangegangenen|vorstehenden|"
        r"ursprunglichen)\s+)?(?:anweisungen|instruktionen|regeln|vorgaben|richtlinien|befehle|"
        r"kriterien)",
        "ignoriere ignorieren ignoriert vergiss vergessen missachte missachten uberspringe "
        "ubergehe",
    ),
    _p(
        "score",
        "German",
        "gib geben vergib vergeben",
        r"(?:gib|geben\s+sie|vergib|vergeben\s+sie)(?![a-z])[^.\n]{0,60}?(?:hochstnote|bestnote|"
        r"hochstpunktzahl|volle\s+punktzahl|100\s+punkte|bewertung\s+von\s+100|100\s*/\s*100|"
        r"10\s*/\s*10)",
        "hochstnote bestnote hochstpunktzahl punktzahl punkte bewertung 100 10",
    ),
    _p(
        "score",
        "German",
        "bewerte bewerten benote benoten",
        r"(?:bewerte|bewerten\s+sie|benote|benoten\s+sie)\s+(?:diesen|den|dieses|das)\s+(?:artikel|"
        r"text|beitrag|entwurf)\s+mit\s+(?:100|10|der\s+bestnote|der\s+hochstnote)",
        "mit",
    ),
    _p(
        "approve",
        "German",
        "genehmige genehmigen akzeptiere akzeptieren",
        r"(?:genehmige|genehmigen\s+sie|akzeptiere|akzeptieren\s+sie)\s+(?:diesen|den|dieses|"
        r"das)\s+"
        r"(?:artikel|text|beitrag|entwurf)",
        "artikel text beitrag entwurf",
    ),
    _p(
        "persona",
        "German",
        "bist",
        r"du\s+bist\s+(?:jetzt|nun|ab\s+sofort)\s+(?:ein|eine)\s+(?:nachsichtige[rn]?|milde[rn]?|"
        r"gro(?:ss|\u00df)zugige[rn]?|wohlwollende[rn]?)\s+(?:prufer|gutachter|bewerter|korrektor|"
        r"kritiker|lektor)",
        "prufer gutachter bewerter korrektor kritiker lektor",
    ),
    _p(
        "address",
        "German",
        "hinweis nachricht anweisung",
        r"(?:hinweis|nachricht|anweisung)\s+(?:an|fur)\s+(?:die\s+|den\s+)?(?:ki|kunstliche\s+"
        r"intelligenz|modell|prufer|gutachter|bewerter)(?![a-z])",
        "ki kunstliche modell prufer gutachter bewerter",
    ),
    # --- Spanish ---------------------------------------------------------------------------------
    _p(
        "override",
        "Spanish",
        "instrucciones reglas indicaciones directrices ordenes criterios normas",
        r"(?:ignora|ignore|ignoren|ignorad|olvida|olvide|olviden|omite|omita|descarta|descarte|haz"
        r"\s+caso\s+omiso\s+de|haga\s+caso\s+omiso\s+de|no\s+hagas\s+caso\s+(?:a|"
        r"de))\s+(?:todas\s+|"
        r"todos\s+)?(?:las\s+|los\s+|tus\s+|sus\s+|estas\s+)?(?:instrucciones|reglas|indicaciones|"
        r"directrices|ordenes|criterios|normas)",
        "ignora ignore ignoren ignorad olvida olvide olviden omite omita descarta descarte caso",
    ),
    _p(
        "score",
        "Spanish",
        "puntuacion nota calificacion puntaje",
        r"(?:dale|dele|da|de|asigna|asigne|otorga|otorgue|pon|ponle|ponga)(?![a-z])[^.\n]{0,60}?"
        r"(?<![a-z])(?:puntuacion|nota|calificacion|puntaje)\s+(?:de\s+)?(?:100|10|maxima|perfecta|"
        r"maximo)(?![a-z0-9])",
        "100 10 maxima perfecta maximo",
    ),
    _p(
        "approve",
        "Spanish",
        "aprueba apruebe aprueben acepta acepte publica publique",
        r"(?:aprueba|apruebe|aprueben|acepta|acepte|publica|publique)\s+(?:este|"
        r"esta)\s+(?:articulo|"
        r"texto|borrador|entrada|publicacion|contenido)",
        "este esta",
    ),
    _p(
        "persona",
        "Spanish",
        "eres usted seras actua",
        r"(?:eres|es\s+usted|seras|actua\s+como)\s+(?:ahora\s+)?(?:un|una)\s+(?:revisor|revisora|"
        r"evaluador|evaluadora|corrector|correctora|critico|juez)\s+(?:indulgente|generos[oa]|"
        r"benevol[oa]|amable)",
        "indulgente generoso generosa benevolo benevola amable",
    ),
    _p(
        "address",
        "Spanish",
        "nota mensaje instruccion",
        r"(?:nota|mensaje|instruccion)\s+(?:para|a)\s+(?:la\s+|el\s+)?(?:ia|inteligencia "
        r"artificial|"
        r"modelo|revisor|evaluador)(?![a-z])",
        "ia inteligencia modelo revisor evaluador",
    ),
    # --- Italian, Portuguese ---------------------------------------------------------------------
    _p(
        "override",
        "Italian",
        "istruzioni regole",
        r"(?:ignora|ignorate|dimentica|dimenticate)\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|regole)",
        "ignora ignorate dimentica dimenticate",
    ),
    _p(
        "override",
        "Portuguese",
        "instrucoes regras",
        r"(?:ignore|ignora|ignorem|esqueca|esquecam|desconsidere)\s+(?:todas\s+)?(?:as\s+)?"
        r"(?:instrucoes|regras)",
        "ignore ignora ignorem esqueca esquecam desconsidere",
    ),
    # --- Russian (a word of Cyrillic letters only stays Cyrillic) --------------------------------
    _p(
        "override",
        "Russian",
        "",
        r"(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?|не\s+обращай(?:те)?\s+внимания\s+"
        r"на|отбрось(?:те)?|пропусти(?:те)?|не\s+следуй(?:те)?)\s+(?:все\s+)?(?:(?:предыдущие|"
        r"прежние|вышеуказанные|изначальные|свои|твои|ваши|эти)\s+)?(?:указанные\s+выше\s+)?"
        r"(?:инструкци\w*|указани\w*|правил\w*|команд\w*|распоряжени\w*)",
        subs="инструкци|указани|правил|команд|распоряжени",
    ),
    _p(
        "score",
        "Russian",
        "",
        r"(?:поставь(?:те)?|дай(?:те)?|выстави(?:те)?|присвой(?:те)?)(?![\w])[^.\n]{0,60}?"
        r"(?:100|10\s*/\s*10|максимальн\w+|высш\w+)(?:\s+(?:балл\w*|оценк\w*))?",
        subs="поставь|дай|выстави|присвой",
    ),
    _p(
        "approve",
        "Russian",
        "",
        r"(?:одобри(?:те)?|прими(?:те)?|опубликуй(?:те)?)\s+(?:эту|этот|данную|данный)\s+(?:статью|"
        r"текст|черновик|публикацию|материал)",
        subs="одобри|прими|опубликуй",
    ),
    _p(
        "persona",
        "Russian",
        "",
        r"(?:ты|вы)\s+(?:теперь|сейчас)\s+(?:снисходительн\w+|мягк\w+|добр\w+|лояльн\w+)\s+"
        r"(?:рецензент\w*|проверяющ\w+|оценщик\w*|критик\w*|редактор\w*)",
        subs="теперь|сейчас",
    ),
    _p(
        "address",
        "Russian",
        "",
        r"(?:примечание|сообщение|указание|записка)\s+для\s+(?:ии|искусственного\s+интеллекта|"
        r"модели|рецензента|проверяющего)(?![\w])",
        subs=" для ",
    ),
    _p(
        "suppress",
        "Russian",
        "",
        r"не\s+(?:сообщай(?:те)?|указывай(?:те)?|отмечай(?:те)?)\s+(?:никаких\s+|"
        r"о\s+)?(?:проблем\w*|"
        r"ошибк\w*|недостатк\w*)",
        subs="не сообщай|не указывай|не отмечай",
    ),
    # --- Chinese, Japanese, Korean (no spaces between words) -------------------------------------
    _p(
        "override",
        "Chinese",
        "",
        r"(?:忽略|无视|忽视|不要理会|不要理睬|别管|忘记|忘掉|跳过)(?:之前|以上|上面|先前|前面|前述|"
        r"此前|原来|原有)?的?(?:所有|全部|一切|任何)?的?(?:指令|指示|说明|规则|提示|要求|命令|设定)",
        subs="忽略|无视|忽视|不要理|别管|忘记|忘掉|跳过",
    ),
    _p(
        "score",
        "Chinese",
        "",
        r"(?:给|为|帮|打|评)[^。\n]{0,12}?(?:满分|100分|一百分|最高分)",
        subs="满分|100分|一百分|最高分",
    ),
    _p(
        "approve",
        "Chinese",
        "",
        r"(?:批准|通过|接受|发布)(?:这篇|本篇|此篇|该)(?:文章|稿件|内容|草稿)",
        subs="批准|通过|接受|发布",
    ),
    _p(
        "persona",
        "Chinese",
        "",
        r"你(?:现在|从现在起|从现在开始)是(?:一个|一位|一名)?(?:宽松|宽容|仁慈|友善|温和)的"
        r"(?:审稿人|评审|评审员|评分员|审核员|编辑)",
        subs="你",
    ),
    _p("suppress", "Chinese", "", r"不要(?:指出|报告|提及|标记)任何(?:问题|错误)", subs="不要"),
    _p(
        "override",
        "Japanese",
        "",
        r"(?:以前|前|上記|これまで)の(?:指示|命令|ルール)を(?:すべて|全て)?無視",
        subs="無視",
    ),
    _p("score", "Japanese", "", r"満点を(?:つけ|付け)", subs="満点"),
    _p(
        "override",
        "Korean",
        "",
        r"(?:이전|위|앞)(?:의)?\s*(?:모든\s*)?(?:지시|명령|지침|규칙)(?:을|를|은|는)?\s*(?:모두\s*)?무시",
        subs="무시",
    ),
)
