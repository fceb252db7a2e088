"""The words of the names an import makes up ("Restroom 2", "Elevator 1", "Level 3"), in
each language of directions (issue 66, point 3: a Chinese route said "在Elevator 1左轉",
the generated names being English only). One table: a row per IMDF category with its
word in each language, then the words of a category's detail ("restroom.female": "女",
"Damen"). English is also written by rule where it is missing here
(`categories.category_label`: "fitnessroom" -> "Fitnessroom" is not written, the row
is); another language without a row keeps the English word.

Languages: the tags of `routing.vocabulary.SUPPORTED` (a test holds them equal), English
first."""

from __future__ import annotations

LANGUAGES = ("en", "zh-Hant", "zh-Hans", "fr", "de", "es")

# The word of a level without a name ("Level 2", "樓層 2"), in each of LANGUAGES.
LEVEL_WORD = ("Level", "樓層", "楼层", "Niveau", "Ebene", "Nivel")

# category -> the word in each of LANGUAGES, in their order
WORDS: dict[str, tuple[str, str, str, str, str, str]] = {
    "auditorium": ("Auditorium", "禮堂", "礼堂", "Auditorium", "Auditorium", "Auditorio"),
    "baggageclaim": (
        "Baggage claim",
        "行李認領處",
        "行李提取处",
        "Retrait des bagages",
        "Gepäckausgabe",
        "Recogida de equipajes",
    ),
    "checkin": ("Check-in", "登記櫃檯", "值机柜台", "Enregistrement", "Check-in", "Facturación"),
    "classroom": ("Classroom", "課室", "教室", "Salle de classe", "Klassenzimmer", "Aula"),
    "conferenceroom": (
        "Conference room",
        "會議室",
        "会议室",
        "Salle de conférence",
        "Konferenzraum",
        "Sala de conferencias",
    ),
    "elevator": ("Elevator", "升降機", "电梯", "Ascenseur", "Aufzug", "Ascensor"),
    "escalator": (
        "Escalator",
        "扶手電梯",
        "自动扶梯",
        "Escalier mécanique",
        "Rolltreppe",
        "Escalera mecánica",
    ),
    "fieldofplay": ("Field of play", "運動場", "运动场", "Terrain", "Spielfeld", "Campo de juego"),
    "firstaid": (
        "First aid",
        "急救站",
        "急救站",
        "Premiers secours",
        "Erste Hilfe",
        "Primeros auxilios",
    ),
    "fitnessroom": (
        "Fitness room",
        "健身室",
        "健身房",
        "Salle de sport",
        "Fitnessraum",
        "Gimnasio",
    ),
    "foodservice": ("Food service", "餐飲", "餐饮", "Restauration", "Gastronomie", "Restauración"),
    "footbridge": (
        "Footbridge",
        "行人天橋",
        "人行天桥",
        "Passerelle",
        "Fußgängerbrücke",
        "Pasarela",
    ),
    "huddleroom": (
        "Huddle room",
        "小型會議室",
        "小型会议室",
        "Petite salle de réunion",
        "Besprechungsraum",
        "Sala de reuniones",
    ),
    "kiosk": ("Kiosk", "售賣亭", "售货亭", "Kiosque", "Kiosk", "Quiosco"),
    "kitchen": ("Kitchen", "廚房", "厨房", "Cuisine", "Küche", "Cocina"),
    "laboratory": ("Laboratory", "實驗室", "实验室", "Laboratoire", "Labor", "Laboratorio"),
    "library": ("Library", "圖書館", "图书馆", "Bibliothèque", "Bibliothek", "Biblioteca"),
    "lobby": ("Lobby", "大堂", "大堂", "Hall", "Lobby", "Vestíbulo"),
    "lostandfound": (
        "Lost and found",
        "失物認領處",
        "失物招领处",
        "Objets trouvés",
        "Fundbüro",
        "Objetos perdidos",
    ),
    "lounge": ("Lounge", "休息室", "休息室", "Salon", "Lounge", "Sala de estar"),
    "mailroom": (
        "Mailroom",
        "收發室",
        "收发室",
        "Salle du courrier",
        "Poststelle",
        "Sala de correo",
    ),
    "mothersroom": (
        "Mothers' room",
        "育嬰室",
        "母婴室",
        "Salle d'allaitement",
        "Stillraum",
        "Sala de lactancia",
    ),
    "movietheater": ("Movie theater", "電影院", "电影院", "Cinéma", "Kino", "Cine"),
    "movingwalkway": (
        "Moving walkway",
        "自動行人道",
        "自动人行道",
        "Trottoir roulant",
        "Laufband",
        "Pasillo rodante",
    ),
    "nonpublic": (
        "Non-public area",
        "非公眾地方",
        "非公共区域",
        "Zone non publique",
        "Nicht öffentlicher Bereich",
        "Zona no pública",
    ),
    "office": ("Office", "辦公室", "办公室", "Bureau", "Büro", "Oficina"),
    "opentobelow": ("Open to below", "中空", "中空", "Vide", "Luftraum", "Vacío"),
    "parking": ("Parking", "停車場", "停车场", "Parking", "Parkplatz", "Aparcamiento"),
    "phoneroom": (
        "Phone room",
        "電話室",
        "电话间",
        "Cabine téléphonique",
        "Telefonraum",
        "Sala telefónica",
    ),
    "platform": ("Platform", "月台", "站台", "Quai", "Bahnsteig", "Andén"),
    "privatelounge": (
        "Private lounge",
        "貴賓室",
        "贵宾室",
        "Salon privé",
        "Private Lounge",
        "Sala privada",
    ),
    "ramp": ("Ramp", "斜道", "坡道", "Rampe", "Rampe", "Rampa"),
    "recreation": (
        "Recreation",
        "康樂室",
        "娱乐室",
        "Salle de loisirs",
        "Freizeitraum",
        "Sala recreativa",
    ),
    "restroom": ("Restroom", "洗手間", "洗手间", "Toilettes", "Toilette", "Aseo"),
    "retail": ("Retail", "商店", "商店", "Boutique", "Geschäft", "Tienda"),
    "road": ("Road", "道路", "道路", "Route", "Straße", "Vía"),
    "room": ("Room", "房間", "房间", "Salle", "Raum", "Sala"),
    "serverroom": (
        "Server room",
        "伺服器室",
        "服务器机房",
        "Salle des serveurs",
        "Serverraum",
        "Sala de servidores",
    ),
    "shower": ("Shower", "淋浴間", "淋浴间", "Douche", "Dusche", "Ducha"),
    "smokingarea": (
        "Smoking area",
        "吸煙區",
        "吸烟区",
        "Espace fumeurs",
        "Raucherbereich",
        "Zona de fumadores",
    ),
    "stairs": ("Stairs", "樓梯", "楼梯", "Escalier", "Treppe", "Escalera"),
    "steps": ("Steps", "梯級", "台阶", "Marches", "Stufen", "Escalones"),
    "storage": ("Storage", "儲物室", "储藏室", "Rangement", "Lager", "Almacén"),
    "terrace": ("Terrace", "平台", "露台", "Terrasse", "Terrasse", "Terraza"),
    "theater": ("Theater", "劇院", "剧院", "Théâtre", "Theater", "Teatro"),
    "unenclosedarea": (
        "Unenclosed area",
        "開放區域",
        "开放区域",
        "Zone ouverte",
        "Offener Bereich",
        "Zona abierta",
    ),
    "unspecified": ("Space", "空間", "空间", "Espace", "Bereich", "Espacio"),
    "waitingroom": (
        "Waiting room",
        "等候室",
        "等候室",
        "Salle d'attente",
        "Warteraum",
        "Sala de espera",
    ),
    "walkway": ("Walkway", "通道", "通道", "Couloir", "Gang", "Pasillo"),
    # amenities and occupants an import names when the venue does not
    "atm": ("ATM", "自動櫃員機", "自动取款机", "Distributeur", "Geldautomat", "Cajero automático"),
    # openings that are places (`categories.DOORWAYS`)
    "entrance": ("Entrance", "入口", "入口", "Entrée", "Eingang", "Entrada"),
    "emergencyexit": (
        "Emergency exit",
        "緊急出口",
        "紧急出口",
        "Sortie de secours",
        "Notausgang",
        "Salida de emergencia",
    ),
    "drinkingwater": (
        "Drinking water",
        "飲水機",
        "饮水机",
        "Fontaine à eau",
        "Trinkbrunnen",
        "Fuente de agua",
    ),
    "information": ("Information", "詢問處", "问询处", "Information", "Information", "Información"),
    "restaurant": ("Restaurant", "餐廳", "餐厅", "Restaurant", "Restaurant", "Restaurante"),
}

# a category's detail (`restroom.female`) -> its word in each of LANGUAGES
DETAILS: dict[str, tuple[str, str, str, str, str, str]] = {
    "female": ("female", "女", "女", "femmes", "Damen", "mujeres"),
    "male": ("male", "男", "男", "hommes", "Herren", "hombres"),
    "unisex": ("unisex", "男女共用", "男女通用", "mixtes", "Unisex", "unisex"),
    "family": ("family", "家庭", "家庭", "famille", "Familie", "familiar"),
    "wheelchair": ("wheelchair", "暢通易達", "无障碍", "accessibles", "barrierefrei", "accesible"),
    "transgender": (
        "transgender",
        "性別友善",
        "性别友善",
        "non genrées",
        "geschlechtsneutral",
        "neutro",
    ),
    "island": ("island", "島", "岛", "îlot", "Insel", "isla"),
}


def word_in(row: tuple[str, ...], language: str) -> str:
    """A row's word in `language` (one of LANGUAGES)."""
    return row[LANGUAGES.index(language)]
