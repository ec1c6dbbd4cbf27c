<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de" sourcelanguage="en">
<context>
    <name>Composer</name>
    <message>
        <source>Voice message composer</source>
        <translation>Sprachnachricht verfassen</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Verwerfen</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>Voice note position</source>
        <translation>Position in der Sprachnachricht</translation>
    </message>
    <message>
        <source>Trim start</source>
        <translation>Anfang kürzen</translation>
    </message>
    <message>
        <source>Trim end</source>
        <translation>Ende kürzen</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>Senden</translation>
    </message>
    <message>
        <source>Send voice message</source>
        <translation>Sprachnachricht senden</translation>
    </message>
</context>
<context>
    <name>RecordButton</name>
    <message>
        <source>Record voice message</source>
        <translation>Sprachnachricht aufnehmen</translation>
    </message>
    <message>
        <source>‹ Slide to cancel</source>
        <translation>‹ Zum Abbrechen wischen</translation>
    </message>
    <message>
        <source>Hold to record, release to send</source>
        <translation>Zum Aufnehmen gedrückt halten, zum Senden loslassen</translation>
    </message>
</context>
<context>
    <name>VoiceMessage</name>
    <message>
        <source>Voice message, %1</source>
        <translation>Sprachnachricht, %1</translation>
    </message>
    <message>
        <source>Can&apos;t play this voice message: %1</source>
        <translation>Diese Sprachnachricht kann nicht abgespielt werden: %1</translation>
    </message>
    <message>
        <source>playing at %1</source>
        <translation>wird abgespielt bei %1</translation>
    </message>
    <message>
        <source>paused at %1</source>
        <translation>angehalten bei %1</translation>
    </message>
    <message>
        <source>loading</source>
        <translation>wird geladen</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>Wird geladen</translation>
    </message>
    <message>
        <source>Voice note position</source>
        <translation>Position in der Sprachnachricht</translation>
    </message>
    <message>
        <source>Can&apos;t play this voice message</source>
        <translation>Diese Sprachnachricht kann nicht abgespielt werden</translation>
    </message>
    <message>
        <source>%1x</source>
        <extracomment>A playback speed on its button; %1 is the number (&quot;1.5&quot;, with a point in every language).</extracomment>
        <translation>%1×</translation>
    </message>
    <message>
        <source>Playback speed %1</source>
        <translation>Wiedergabegeschwindigkeit %1</translation>
    </message>
</context>
</TS>
